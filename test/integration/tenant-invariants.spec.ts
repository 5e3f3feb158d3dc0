import * as fc from 'fast-check';
import IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { FairnessBy, LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { tenantEntry } from '../../lib/redis/lane-keys';
import { engineFixture, keysOf } from '../support/engine';

/** Lanes of tenant A, of tenant B, and of no tenant. */
const TENANT_OF: Record<string, string | undefined> = { a0: 'A', a1: 'A', a2: 'A', b0: 'B', b1: 'B', f0: undefined, f1: undefined };
const GROUPS = Object.keys(TENANT_OF);
const TENANTS = ['A', 'B'];

type Op =
  | { op: 'submit'; g: string; named: boolean; delayed: boolean; cost?: number }
  | { op: 'submitMany'; gs: string[] }
  | { op: 'claim' } | { op: 'claimMany'; n: number } | { op: 'wclaim'; max?: number } | { op: 'wclaimMany'; turns: number }
  | { op: 'complete'; i: number } | { op: 'fail'; i: number; how: 'retry' | 'backoff' | 'dead' } | { op: 'release'; i: number }
  | { op: 'pause'; g: string } | { op: 'resume'; g: string } | { op: 'limit'; g: string; n: number | null } | { op: 'weight'; g: string; w: number }
  | { op: 'pauseTenant'; t: string; timed: boolean } | { op: 'resumeTenant'; t: string }
  | { op: 'tenantLimit'; t: string; n: number | null } | { op: 'tenantWeight'; t: string; w: number }
  | { op: 'queueLimit'; n: number | null } | { op: 'retryDead' }
  | { op: 'cancel'; i: number } | { op: 'drain'; g?: string }
  | { op: 'fairness'; by: FairnessBy };

const group = fc.constantFrom(...GROUPS);
const tenant = fc.constantFrom(...TENANTS);
const small = fc.integer({ min: 1, max: 4 });
const OPS: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('submit' as const), g: group, named: fc.boolean(), delayed: fc.boolean(),
    cost: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('submitMany' as const), gs: fc.array(group, { minLength: 1, maxLength: 6 }) }) },
  { weight: 4, arbitrary: fc.constant({ op: 'claim' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('claimMany' as const), n: small }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('wclaim' as const), max: fc.option(small, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('wclaimMany' as const), turns: small }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('complete' as const), i: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fail' as const), i: fc.nat(20), how: fc.constantFrom<'retry' | 'backoff' | 'dead'>('retry', 'backoff', 'dead') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pause' as const), g: group }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resume' as const), g: group }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('limit' as const), g: group, n: fc.option(small, { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('weight' as const), g: group, w: small }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pauseTenant' as const), t: tenant, timed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resumeTenant' as const), t: tenant }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('tenantLimit' as const), t: tenant, n: fc.option(small, { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tenantWeight' as const), t: tenant, w: small }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('queueLimit' as const), n: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'retryDead' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cancel' as const), i: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drain' as const), g: fc.option(group, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fairness' as const), by: fc.constantFrom<FairnessBy>('jobs', 'cost', 'time') }) },
);

describe('two-level ring invariants over random plans (fast-check: a failure shrinks to its smallest plan)', () => {
  const engine = engineFixture({ maxAttempts: 2, backoff: { delayMs: 0 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /**
   * Every serviceable lane is on its tenant's ring (or, under none, the queue's) exactly once; every
   * tenant that is open and has a serviceable lane is on the queue's ring exactly once; nothing else
   * is on either; a ring set mirrors its ring; a tenant's active count (kept under a limit, summed by tenant() either way) is its jobs held; every job
   * submitted is in exactly one place.
   */
  /** Every job id the queue holds, pending (any lane of the plan), active, scheduled or dead. */
  async function heldIds(q: string): Promise<Set<string>> {
    const k = keysOf(q);
    const ids = await Promise.all([...GROUPS.map((g) => client.zrange(k.lane(g), 0, -1)),
      client.zrange(k.active, 0, -1), client.zrange(k.schedule, 0, -1), client.zrange(k.dead, 0, -1)]);
    return new Set(ids.flat());
  }

  /**
   * A ring's entries, in the order its queue's fairness keeps (see lua/includes/ringStep.lua): the
   * list in `jobs`, the virtual-time set in `cost` and `time`; the other one is empty once fairness() has returned.
   */
  async function ringOf(key: string, by: FairnessBy): Promise<string[]> {
    const [list, byTime] = await Promise.all([client.lrange(key, 0, -1), client.zrange(key + ':vt', 0, -1)]);
    expect({ key, by, other: by === 'jobs' ? byTime : list }).toEqual({ key, by, other: [] });
    return by === 'jobs' ? list : byTime;
  }

  /**
   * `heldBefore`: each tenant's active jobs before the step, for a claim step (else undefined): a claim
   * never takes a tenant past its limit (it may already be past it, if the limit was lowered), and
   * the map is updated for the next step.
   */
  async function check(q: string, submitted: Set<string>, completed: Set<string>, by: FairnessBy, heldBefore: Map<string, number>, claimed: boolean): Promise<void> {
    const k = keysOf(q);
    const [ring, ringset, paused, glimit, gactive, active, schedule, dead] = await Promise.all([
      ringOf(k.ring, by), client.smembers(k.ringSet), client.smembers(k.paused), client.hgetall(k.limit),
      client.hgetall(k.gactive), client.zrange(k.active, 0, -1), client.zrange(k.schedule, 0, -1), client.zrange(k.dead, 0, -1),
    ]);
    const tenantOf = new Map<string, string | null>();
    const pending = new Map<string, string[]>();
    for (const g of GROUPS) {
      tenantOf.set(g, await client.get(k.laneTenant(g)));
      pending.set(g, await client.zrange(k.lane(g), 0, -1));
    }
    const serviceable = (g: string): boolean => pending.get(g)!.length > 0 && !paused.includes(g)
      && (glimit[g] === undefined || Number(gactive[g] ?? 0) < Number(glimit[g]));
    expect(new Set(ring).size).toBe(ring.length);
    expect([...ring].sort()).toEqual([...ringset].sort());
    const expectedQueueRing: string[] = GROUPS.filter((g) => tenantOf.get(g) === null && serviceable(g));
    const rows = new Map<string, Record<string, string>>();
    for (const id of active) rows.set(id, await client.hgetall(k.job(id)));
    for (const t of TENANTS) {
      const [tring, tset, info] = await Promise.all([
        ringOf(k.tenantRing(t), by), client.smembers(k.tenantRingSet(t)), client.hgetall(k.tenantInfo(t))]);
      expect({ t, dups: tring.length - new Set(tring).size }).toEqual({ t, dups: 0 });
      expect({ t, set: [...tset].sort() }).toEqual({ t, set: [...tring].sort() });
      const mine = GROUPS.filter((g) => tenantOf.get(g) === t && serviceable(g));
      expect({ t, ring: [...tring].sort() }).toEqual({ t, ring: mine.sort() });
      const held = [...rows.values()].filter((r) => (r.held ?? '').slice(1) === t).length;
      if (claimed && info.limit !== undefined) {
        expect({ t, held: held <= Math.max(Number(info.limit), heldBefore.get(t) ?? 0) }).toEqual({ t, held: true });
      }
      heldBefore.set(t, held);
      // The kept count exists only under a limit (see laneRing); tenant() sums the lanes otherwise.
      expect({ t, active: info.limit === undefined ? info.active : Number(info.active ?? 0) })
        .toEqual({ t, active: info.limit === undefined ? undefined : held });
      expect({ t, active: (await lanes.tenant(q, t)).active }).toEqual({ t, active: held });
      const open = info.paused === undefined && (info.limit === undefined || held < Number(info.limit));
      if (open && mine.length > 0) expectedQueueRing.push(tenantEntry(t));
    }
    expect([...ring].sort()).toEqual(expectedQueueRing.sort());
    // A lane's tenant is fixed while it holds any job, scheduled and dead ones too (the contract):
    // every job whose row names a tenant is in a lane under that tenant; the count of each lane's
    // scheduled and dead jobs (what holds the tenant where the lane index has let the lane go) is
    // exact; and a lane that holds nothing and is not in the index has no tenant.
    const [parked, indexed] = await Promise.all([client.hgetall(k.parked), client.zrange(k.index, 0, -1)]);
    const parkedNow: Record<string, string> = {};
    for (const id of [...schedule, ...dead]) {
      const g = await client.hget(k.job(id), 'group');
      parkedNow[g!] = String(Number(parkedNow[g!] ?? 0) + 1);
    }
    expect(parked).toEqual(parkedNow);
    for (const id of [...pending.values()].flat().concat(active, schedule, dead)) {
      const [g, heldField] = await client.hmget(k.job(id), 'group', 'held');
      const named = (heldField ?? '').slice(1);
      if (named !== '') expect({ id, g, tenant: tenantOf.get(g!) }).toEqual({ id, g, tenant: named });
    }
    for (const g of GROUPS) {
      const holds = pending.get(g)!.length > 0 || gactive[g] !== undefined || parkedNow[g] !== undefined;
      if (!holds && !indexed.includes(g)) expect({ g, tenant: tenantOf.get(g) }).toEqual({ g, tenant: null });
    }
    // Nothing lost: each submitted job is in exactly one place, or completed.
    const places = new Map<string, number>();
    const count = (id: string) => places.set(id, (places.get(id) ?? 0) + 1);
    [...pending.values()].flat().forEach(count);
    [...active, ...schedule, ...dead].forEach(count);
    for (const id of submitted) expect({ id, places: places.get(id) ?? 0 }).toEqual({ id, places: completed.has(id) ? 0 : 1 });
  }

  it('hold after every operation of every plan, in every fairness and across changes of it', async () => {
    const modes = fc.constantFrom<FairnessBy>('jobs', 'cost', 'time');
    await fc.assert(fc.asyncProperty(modes, fc.array(OPS, { minLength: 10, maxLength: 40, size: 'max' }), async (first, plan) => {
      const q = queues.queue();
      let by = first;
      await lanes.fairness(q, { by });
      const submitted = new Set<string>();
      // NOTE: completed, and also cancelled or drained: in no place any more.
      const completed = new Set<string>();
      const held: LaneJob[] = [];
      const heldBefore = new Map<string, number>();
      const hold = (jobs: LaneJob[]) => held.push(...jobs);
      const take = (i: number): LaneJob | undefined => (held.length ? held.splice(i % held.length, 1)[0] : undefined);
      const opts = (g: string, named: boolean) => (named && TENANT_OF[g] ? { tenant: TENANT_OF[g] } : {});
      try {
        for (const step of plan) {
          try {
            switch (step.op) {
              case 'submit':
                submitted.add(await lanes.submit(q, step.g, 1, { ...opts(step.g, step.named), ...(step.delayed ? { delayMs: 1 } : {}),
                  ...(step.cost ? { cost: step.cost } : {}) }));
                break;
              case 'submitMany':
                (await lanes.submitMany(q, step.gs.map((g) => ({ group: g, payload: 1, opts: opts(g, true) })))).forEach((id) => submitted.add(id));
                break;
              case 'claim': {
                const job = await lanes.claim(q, { leaseMs: 60_000 });
                if (job) hold([job]);
                break;
              }
              case 'claimMany': hold((await lanes.claimMany(q, step.n, { leaseMs: 60_000 })).jobs); break;
              case 'wclaim': hold(await lanes.wclaim(q, { leaseMs: 60_000, max: step.max })); break;
              case 'wclaimMany': (await lanes.wclaimMany(q, step.turns, { leaseMs: 60_000 })).turns.forEach(hold); break;
              case 'complete': {
                const j = take(step.i);
                if (j && (await lanes.complete(q, j.id, j.attempt))) completed.add(j.id);
                break;
              }
              case 'fail': {
                const j = take(step.i);
                // NOTE: a backoff of 1 ms: the retry waits in the schedule (a scheduled job holds its lane's tenant,
                // as a dead one does) until a claim promotes it.
                if (j) await lanes.fail(q, j.id, j.attempt, 'planned', step.how === 'backoff' ? { backoff: { delayMs: 1 } } : step.how === 'dead' ? { dead: true } : undefined);
                break;
              }
              case 'release': {
                const j = take(step.i);
                if (j) await lanes.release(q, j.id, j.attempt);
                break;
              }
              case 'pause': await lanes.pause(q, step.g); break;
              case 'resume': await lanes.resume(q, step.g); break;
              case 'limit': await lanes.limit(q, step.g, step.n); break;
              case 'weight': await lanes.weight(q, step.g, step.w); break;
              case 'pauseTenant': await lanes.pauseTenant(q, step.t, step.timed ? { forMs: 60_000 } : undefined); break;
              case 'resumeTenant': await lanes.resumeTenant(q, step.t); break;
              case 'tenantLimit': await lanes.tenantLimit(q, step.t, step.n); break;
              case 'tenantWeight': await lanes.tenantWeight(q, step.t, step.w); break;
              case 'queueLimit': await lanes.queueLimit(q, step.n); break;
              case 'retryDead': {
                const [first] = await lanes.dead(q, { count: 1 });
                if (first) await lanes.retryDead(q, first.id);
                break;
              }
              case 'cancel': {
                const ids = [...submitted];
                const id = ids.length ? ids[step.i % ids.length] : undefined;
                if (id && (await lanes.cancel(q, id))) completed.add(id);
                break;
              }
              case 'drain': {
                // What the drain removed is exactly what left the queue during it, as many as it says.
                const before = await heldIds(q);
                const n = await lanes.drain(q, step.g === undefined ? undefined : { group: step.g });
                const after = await heldIds(q);
                const gone = [...before].filter((id) => !after.has(id));
                expect(gone.length).toBe(n);
                gone.forEach((id) => completed.add(id));
                break;
              }
              case 'fairness':
                by = step.by;
                await lanes.fairness(q, { by });
                break;
            }
          } catch (err) {
            // NOTE: naming a tenant for a lane that holds jobs under none (a submit that named none
            // made it) is refused by design; nothing else may throw.
            if (!(err instanceof EchoMqError && /opts\.tenant$/.test(err.argument ?? ''))) throw err;
          }
          await check(q, submitted, completed, by, heldBefore, ['claim', 'claimMany', 'wclaim', 'wclaimMany'].includes(step.op));
        }
      } finally {
        await queues.dropAll(client);
      }
    }), { numRuns: Number(process.env.ECHOMQ_PLANS ?? 40), seed: Number(process.env.ECHOMQ_SEED ?? 20240101), endOnFailure: false });
  }, 300_000);
});
