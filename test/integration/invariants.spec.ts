import * as fc from 'fast-check';
import IORedis from 'ioredis';
import { TestRedisServer } from '../support/redis-server';
import { lanesOn } from '../support/lanes';
import { engineFixture, keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';
import { mintJobId, mintTimeOf } from '../../lib/ids/job-id';
import { splitAt } from '../../lib/scripts/job-ready-time';
import { EchoMqError } from '../../lib/errors';
import type { LanesService } from '../../lib/lanes.service';
import { ForeignWriter } from '../support/foreign-writer';
import { seeded } from '../support/seeded';

const SEED = Number(process.env.ECHOMQ_SEED ?? 20240101);
/** Plans per mode (fast-check runs); more with ECHOMQ_PLANS=N (as in tenant-invariants.spec.ts). Each plan takes as long as the whole run did before. */
const RUNS = Number(process.env.ECHOMQ_PLANS ?? 1);
const CLIENTS = 4;
const ROUNDS = 5;
const OPS_PER_CLIENT_PER_ROUND = 250; // 4 × 5 × 250 = 5,000 concurrent operations
const SEQUENTIAL_OPS = 3_000;
const GROUPS = [...Array(100).keys()].map((i) => (i % 10 === 7 ? `lane:${i}:ü` : `L${i}`));
/** How long the keeping clients keep a completed row: longer than a round, shorter than the run, so rows expire mid-run. */
const KEEP_MS = 2_000;

/** A handler's result as a client might send one: any JSON value, or none (undefined). */
function randomResult(rnd: () => number): unknown {
  const r = rnd();
  if (r < 0.25) return undefined;
  if (r < 0.35) return null;
  if (r < 0.5) return rnd() < 0.5 ? Math.floor(rnd() * 1e6) - 500_000 : rnd();
  if (r < 0.6) return rnd() < 0.5;
  if (r < 0.75) return `résultat ${rnd().toString(36)} ü "quoted"`;
  if (r < 0.9) return { score: rnd(), tags: ['a', 'b', 'c'].slice(0, Math.floor(rnd() * 4)), nested: { ok: true, none: null } };
  return [1, 'two', { three: 3 }, [rnd()]];
}

/** Test-side read of many lane depths at once (read-only). */
const DEPTHS_LUA = "local out = {} for i = 1, #KEYS do out[i] = redis.call('ZCARD', KEYS[i]) end return out";

/**
 * The default mode, and compat mode with a second writer that behaves as the EchoMQ reference does
 * (see test/support/foreign-writer.ts) mixed into the same random run.
 */
const MODES = ['default', 'compat, with a foreign writer'] as const;

/** What the clients saw, shared by all of them. */
interface Ledger {
  submitted: Set<string>;
  completed: Set<string>;
  /** Completed by the foreign writer: not in our counters, and its dedup keys stay behind (it keeps none). */
  foreignCompleted: Set<string>;
  knownDead: Set<string>;
  /** Completed with keepCompletedMs > 0, until the check after its expiry finds the row gone. */
  kept: Map<string, Kept>;
  /** The dedup key each id was admitted under (to submit it again while it is kept). */
  dedupOf: Map<string, string>;
  ops: Record<string, number>;
  /** Removed before completing: by cancel (by id), or found gone after a drain or a clean of the dead set. */
  cancelled: Set<string>;
  /** Jobs drain and clean('dead') said they removed, not yet matched to the ids found gone. */
  unattributed: number;
  /** Kept rows clean('completed') said it removed, and those the ledger let go before their time. */
  cleanedKept: number;
  forgivenKept: number;
  /** Every id a submit returned, in order (to pick one to cancel). */
  order: string[];
}

/** What a kept completed row must hold, and when it may be gone. */
interface Kept {
  /** The result as the row keeps it: its JSON, '' for none. */
  result: string;
  keepMs: number;
  /** Client clock just before the complete call: the row is kept at least until since + keepMs. */
  since: number;
}

interface Held {
  id: string;
  attempt: number;
  /** Claimed by the foreign writer. */
  foreign?: boolean;
}

type Op = (lanes: LanesService, rnd: () => number, held: Held[]) => Promise<void>;

/**
 * An array generated at its full length `n` (so every plan is as big as the run is meant to be) that
 * shrinks as any array of at most `n` does: a failing plan loses steps until it passes.
 */
class FullLength<T> extends fc.Arbitrary<T[]> {
  private readonly full: fc.Arbitrary<T[]>;
  private readonly loose: fc.Arbitrary<T[]>;
  constructor(item: fc.Arbitrary<T>, n: number) {
    super();
    this.full = fc.array(item, { minLength: n, maxLength: n });
    this.loose = fc.array(item, { maxLength: n });
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T[]> {
    // NOTE: no context: the loose array shrinks it as a plain value.
    return new fc.Value(this.full.generate(mrng, biasFactor).value, undefined);
  }
  canShrinkWithoutContext(value: unknown): value is T[] {
    return this.loose.canShrinkWithoutContext(value);
  }
  shrink(value: T[], context: unknown): fc.Stream<fc.Value<T[]>> {
    return this.loose.shrink(value, context);
  }
}

/**
 * A step is the seed of its own generator, which picks the operation (by the weights below) and
 * draws its arguments, so a shrunk plan keeps each remaining step as it was. Not shrunk itself.
 */
const STEP = fc.noShrink(fc.integer({ min: 0, max: 0xffffffff }));
/** Each round's steps per client (run concurrently), then the sequential steps. */
interface Plan {
  rounds: number[][][];
  sequential: number[];
}
const PLAN: fc.Arbitrary<Plan> = fc.record({
  rounds: fc.tuple(...[...Array(ROUNDS)].map(() => fc.tuple(...[...Array(CLIENTS)].map(() => new FullLength(STEP, OPS_PER_CLIENT_PER_ROUND))))),
  sequential: new FullLength(STEP, SEQUENTIAL_OPS),
});
/** Whether a plan is a whole one (not shrunk): only then must the run have covered every feature. */
const isWhole = (plan: Plan): boolean => plan.sequential.length === SEQUENTIAL_OPS
  && plan.rounds.every((r) => r.every((steps) => steps.length === OPS_PER_CLIENT_PER_ROUND));


/** A depth's power-of-two band as the lane index keeps it: 0 for 0, k + 1 for [2^k, 2^(k+1)). */
const depthBand = (d: number): number => (d === 0 ? 0 : Math.floor(Math.log2(d)) + 1);

describe('invariants under a seeded random run', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let server: TestRedisServer;
  /** Reads the checks make in compat mode. */
  let compatReader: LanesService;
  beforeAll(() => {
    ({ client, server } = engine);
    compatReader = lanesOn(client, { compat: 'echomq' });
  });

  /** Checks every engine invariant on a quiet queue; returns the number of live rows. */
  async function checkInvariants(q: string, ledger: Ledger, when: string, compat = false): Promise<number> {
    const k = keysOf(q);
    const fail = (msg: string): never => {
      throw new Error(`[seed ${SEED}, ${when}] ${msg}`);
    };
    // NOTE: stats() first: it applies the lane timers that are due (as a claim would), so the keys read
    // next are the state it reported on, and every invariant below holds for what it wrote too.
    // It runs in the queue's mode: a process that applies lane timers to a queue the reference writes
    // must run in compat mode, as every writer of it must.
    const st = await (compat ? compatReader : engine.lanes).stats(q);
    const [ring, ringset, paused, glimit, gactive, active, schedule, dead, dedup, stats, timers, grate, gpause] = await Promise.all([
      client.lrange(k.ring, 0, -1), client.smembers(k.ringSet), client.smembers(k.paused), client.hgetall(k.limit),
      client.hgetall(k.gactive), client.zrange(k.active, 0, -1), client.zrange(k.schedule, 0, -1), client.zrange(k.dead, 0, -1),
      client.hgetall(k.dedup), client.hgetall(k.stats), client.zrange(k.timers, 0, -1), client.hgetall(k.rate), client.hgetall(k.pauseInfo),
    ]);
    // maxDepth: a lane's count of delayed submits is exactly its scheduled jobs never served (attempts 0).
    // NOTE: not in compat mode: the reference's delayed jobs are not counted (see laneDepth).
    if (!compat) {
      const delayedCount: Record<string, string> = {};
      const rows = schedule.length ? await Promise.all(schedule.map((id) => client.hmget(k.job(id), 'group', 'attempts'))) : [];
      for (const [g, attempts] of rows) if (g && attempts === '0') delayedCount[g] = String(Number(delayedCount[g] ?? 0) + 1);
      const counted = await client.hgetall(k.delayed);
      if (JSON.stringify(Object.entries(counted).sort()) !== JSON.stringify(Object.entries(delayedCount).sort())) {
        fail(`gdelayed ${JSON.stringify(counted)} != delayed submits scheduled ${JSON.stringify(delayedCount)}`);
      }
    }
    const laneKeys = await client.keys(`${k.base}g:*:pending`);
    const laneGroups = laneKeys.map((key) => key.slice(k.base.length + 2, -':pending'.length));
    // Lane timers: a rate-window reopening only for a lane with a rate, a pause end only for a
    // paused lane whose details say when; the marker exactly while some lane has a rate.
    // NOTE: in compat mode the other writer resumes a lane without our pause details or timer (it
    // knows nothing of timed pauses); they stay until the timer falls due, which then changes
    // nothing but the details. So there a pause's timer and details may outlive the pause.
    const pausedOrForeign = (g: string): boolean => paused.includes(g) || compat;
    const parked = new Set<string>();
    for (const t of timers) {
      if (t === '~rate') continue;
      const g = t.slice(2);
      if (t.startsWith('r:')) {
        if (grate[g] === undefined) fail(`timer ${t} for a lane without a rate`);
        parked.add(g);
      } else if (!t.startsWith('p:') || !pausedOrForeign(g) || !/^\d+\|/.test(gpause[g] ?? '')) {
        fail(`timer ${t} does not match a timed pause (${gpause[g]})`);
      }
    }
    if (timers.includes('~rate') !== Object.keys(grate).length > 0) fail(`rate marker ${timers.includes('~rate')} with rates ${JSON.stringify(grate)}`);
    for (const g of Object.keys(gpause)) if (!pausedOrForeign(g)) fail(`pause details for lane ${g}, which is not paused`);
    for (const [g, setting] of Object.entries(grate)) {
      const max = Number(setting.split(' ')[0]);
      const logged = await client.llen(k.rateLog(g));
      if (logged > max) fail(`rate log of ${g} holds ${logged} claims, over its max ${max}`);
    }
    for (const g of laneGroups) if (!GROUPS.includes(g)) fail(`unexpected lane key for group ${g}`);
    const depth = new Map<string, string[]>();
    const pipe = client.pipeline();
    for (const g of GROUPS) pipe.zrange(k.lane(g), 0, -1);
    const lanesMembers = (await pipe.exec())!.map(([, r]) => r as string[]);
    GROUPS.forEach((g, i) => depth.set(g, lanesMembers[i]));

    // The ring: exactly the serviceable lanes not parked by their rate, no duplicates; the ring set
    // mirrors it and also holds the parked lanes.
    const pausedSet = new Set(paused);
    const canServe = (g: string): boolean => {
      const lim = glimit[g] === undefined ? undefined : Number(glimit[g]);
      return depth.get(g)!.length > 0 && !pausedSet.has(g) && (lim === undefined || Number(gactive[g] ?? 0) < lim);
    };
    const serviceable = GROUPS.filter((g) => canServe(g) && !parked.has(g)).sort();
    if (new Set(ring).size !== ring.length) fail(`ring has duplicates: ${ring.join(',')}`);
    // NOTE: in compat mode a lane parked by its rate may be back on the ring early (the other writer
    // knows nothing of rates, and our joins outside a submit cannot see the park); the next claim of
    // ours that reaches it parks it again. The ring list alone says what is on the ring there.
    for (const g of ring) if (compat && parked.has(g) && !canServe(g)) fail(`parked lane ${g} is on the ring, not serviceable`);
    const ringed = compat ? ring.filter((g) => !parked.has(g)) : ring;
    expect({ when, ring: [...ringed].sort() }).toEqual({ when, ring: serviceable });
    if (!compat) expect({ when, ringset: [...ringset].sort() }).toEqual({ when, ringset: [...serviceable, ...parked].sort() });

    // Every place a job id can be, and the rows.
    const places = new Map<string, string[]>();
    const put = (id: string, place: string) => places.set(id, [...(places.get(id) ?? []), place]);
    GROUPS.forEach((g) => depth.get(g)!.forEach((id) => put(id, `lane:${g}`)));
    schedule.forEach((id) => put(id, 'schedule'));
    active.forEach((id) => put(id, 'active'));
    dead.forEach((id) => put(id, 'dead'));
    const [jobKeys, keptKeys] = await Promise.all([client.keys(`${k.base}job:*`), client.keys(`${k.base}kept:*`)]);
    const rowPipe = client.pipeline();
    for (const key of jobKeys) rowPipe.hgetall(key).pttl(key);
    for (const key of keptKeys) rowPipe.hget(key, 'id').pttl(key);
    const rowReplies = (await rowPipe.exec())!;
    // Anything kept since before this instant and gone by now expired legitimately.
    const checkedAt = Date.now();
    const rows = new Map<string, Record<string, string>>();
    const ttls = new Map<string, number>();
    jobKeys.forEach((key, i) => {
      const row = rowReplies[2 * i][1] as Record<string, string>;
      // NOTE: a kept row that expired between KEYS and HGETALL reads as empty: it is gone.
      if (Object.keys(row).length === 0) return;
      rows.set(key.slice(`${k.base}job:`.length), row);
      ttls.set(key.slice(`${k.base}job:`.length), rowReplies[2 * i + 1][1] as number);
    });
    // Kept dedup keys: dedup key -> [id, TTL] (a null id when it expired after KEYS).
    const keptDedup = new Map(keptKeys.map((key, i) => {
      const at = 2 * (jobKeys.length + i);
      return [key.slice(`${k.base}kept:`.length), [rowReplies[at][1] as string | null, rowReplies[at + 1][1] as number] as const];
    }));
    const expiredBy = (kept: Kept, ms: number): boolean => kept.since + kept.keepMs <= ms;

    const where: Record<string, string> = { pending: 'lane', scheduled: 'schedule', active: 'active', dead: 'dead' };
    const activeCount = new Map<string, number>();
    const keptRows: string[] = [];
    const onRing = new Set([...ring, ...ringset]);
    for (const [id, row] of rows) {
      const at = places.get(id) ?? [];
      if (row.state === 'completed') {
        // A kept completion: out of every lane, the ring, the leases, the schedule and the dead set,
        // with its finish time, the result its client sent, and a TTL no longer than it was kept for.
        const kept = ledger.kept.get(id);
        if (!kept) fail(`job ${id} is completed and still has a row, but no client kept it`);
        if (at.length !== 0 || onRing.has(id)) fail(`kept job ${id} is in [${[...at, ...(onRing.has(id) ? ['ring'] : [])].join(', ')}]`);
        if (!/^\d+$/.test(row.done ?? '') || Number(row.done) < kept!.since - 1 || Number(row.done) > checkedAt) {
          fail(`kept job ${id} finished at ${row.done}, completed between ${kept!.since} and ${checkedAt}`);
        }
        if (row.result !== kept!.result) fail(`kept job ${id} holds result ${row.result}, its client sent ${kept!.result}`);
        const ttl = ttls.get(id)!;
        // NOTE: 0 in its last millisecond, -2 when it expired between HGETALL and PTTL: its time is up.
        if (ttl === 0 || ttl === -2 ? !expiredBy(kept!, checkedAt) : !(ttl > 0 && ttl <= kept!.keepMs)) {
          fail(`kept job ${id} has TTL ${ttl}, kept for ${kept!.keepMs} ms`);
        }
        // Its dedup key points at it from a key that expires with it, no longer from the dedup hash.
        if (row.dedup !== undefined && (dedup[row.dedup] !== undefined || (keptDedup.get(row.dedup)?.[0] ?? id) !== id)) {
          fail(`kept job ${id}'s dedup key ${row.dedup} is in the hash (${dedup[row.dedup]}) or kept for ${keptDedup.get(row.dedup)?.[0]}`);
        }
        if (row.dedup !== undefined && !keptDedup.has(row.dedup) && !expiredBy(kept!, checkedAt)) fail(`kept job ${id}'s dedup key ${row.dedup} is gone`);
        keptRows.push(id);
        continue;
      }
      if (ttls.get(id) !== -1) fail(`live job ${id} (state ${row.state}) has TTL ${ttls.get(id)}`);
      if (!(row.state in where)) fail(`job ${id} has state ${row.state}`);
      const expected = row.state === 'pending' ? `lane:${row.group}` : where[row.state];
      if (at.length !== 1 || at[0] !== expected) fail(`job ${id} (state ${row.state}, group ${row.group}) is in [${at.join(', ')}]`);
      if (row.state === 'active') {
        activeCount.set(row.group, (activeCount.get(row.group) ?? 0) + 1);
        if (Number(row.attempts) < 1) fail(`active job ${id} has attempts ${row.attempts}`);
      }
      if (!ledger.submitted.has(id)) fail(`job ${id} was never returned by a submit`);
      if (ledger.completed.has(id)) fail(`job ${id} was completed but its row is still there`);
      if (row.dedup !== undefined && dedup[row.dedup] !== id) fail(`job ${id}'s dedup key ${row.dedup} points at ${dedup[row.dedup]}`);
    }
    for (const [id, at] of places) if (!rows.has(id)) fail(`${id} is in [${at.join(', ')}] without a row`);
    // Kept rows let go before their time: no more than clean('completed') removed.
    if (ledger.forgivenKept > ledger.cleanedKept) fail(`${ledger.forgivenKept} kept rows gone early, clean removed ${ledger.cleanedKept}`);
    // A kept row is there until its time is up; once it is gone it is forgotten, so later checks stay cheap.
    for (const [id, kept] of ledger.kept) {
      if (rows.has(id)) continue;
      if (!expiredBy(kept, checkedAt)) fail(`kept job ${id} is gone ${kept.since + kept.keepMs - checkedAt} ms early`);
      ledger.kept.delete(id);
      keptExpired += 1;
    }
    keptSeen = Math.max(keptSeen, keptRows.length);
    // job() of a kept one: completed, with the same result and finish time (null only once expired).
    const infos = await Promise.all(keptRows.map((id) => engine.lanes.job(q, id)));
    const readAt = Date.now();
    infos.forEach((info, i) => {
      const id = keptRows[i];
      const kept = ledger.kept.get(id)!;
      if (info === null) {
        if (!expiredBy(kept, readAt)) fail(`job() of kept job ${id} is null before it expired`);
        return;
      }
      const result = kept.result === '' ? undefined : JSON.parse(kept.result);
      expect({ when, id, state: info.state, result: info.result, finishedAt: info.finishedAt })
        .toEqual({ when, id, state: 'completed', result, finishedAt: Number(rows.get(id)!.done) });
    });
    for (const [key, id] of Object.entries(dedup)) {
      const row = rows.get(id);
      if ((row?.dedup !== key || row.state === 'completed') && !ledger.foreignCompleted.has(id)) fail(`dedup ${key} points at ${id}, not live with that key`);
    }
    // A kept dedup key lasts no longer than its kept row: it points at one with that key, or both just expired.
    for (const [key, [id, ttl]] of keptDedup) {
      if (id === null) continue;
      const kept = ledger.kept.get(id);
      if (!kept) fail(`kept dedup key ${key} points at ${id}, not a kept job`);
      if (rows.get(id) ? rows.get(id)!.dedup !== key : !expiredBy(kept!, checkedAt)) fail(`kept dedup key ${key} points at ${id}, kept without it`);
      if (ttl === 0 || ttl === -2 ? !expiredBy(kept!, checkedAt) : !(ttl > 0 && ttl <= kept!.keepMs)) {
        fail(`kept dedup key ${key} has TTL ${ttl}, kept for ${kept!.keepMs} ms`);
      }
    }

    // gactive per lane equals that lane's jobs in the active set; no zero or negative counts kept.
    const gactiveNumbers = Object.fromEntries(Object.entries(gactive).map(([g, n]) => [g, Number(n)]));
    expect({ when, gactive: gactiveNumbers }).toEqual({ when, gactive: Object.fromEntries(activeCount) });

    // Nothing lost: every submitted id is completed (and counted), cancelled, or still present; the ids
    // found gone otherwise are exactly as many as drain and clean('dead') said they removed.
    let vanished = 0;
    for (const id of ledger.submitted) {
      if (ledger.completed.has(id) || ledger.cancelled.has(id) || rows.has(id)) continue;
      ledger.cancelled.add(id);
      vanished += 1;
    }

    if (vanished !== ledger.unattributed) fail(`${vanished} jobs are gone without a completion or a cancel, drain and clean removed ${ledger.unattributed}`);
    ledger.unattributed = 0;
    for (const id of ledger.cancelled) if (rows.has(id)) fail(`job ${id} was cancelled but its row is still there`);
    const ours = ledger.completed.size - ledger.foreignCompleted.size;
    if (Number(stats.completed ?? 0) !== ours) fail(`stats say ${stats.completed} completed, the clients saw ${ours}`);
    const live = rows.size - keptRows.length;
    if (ledger.completed.size + ledger.cancelled.size + live !== ledger.submitted.size) {
      fail(`${ledger.submitted.size} submitted != ${ledger.completed.size} completed + ${ledger.cancelled.size} cancelled + ${live} live`);
    }

    // The lane index: exactly the lanes with pending or active jobs or a setting, each scored within
    // its depth's power-of-two band (lua/includes/indexMoved.lua: 0 exactly for 0).
    const [indexFlat, weights, rates] = await Promise.all([
      client.zrange(k.index, 0, -1, 'WITHSCORES'), client.hgetall(k.weight), client.hgetall(k.rate)]);
    const indexed: Record<string, number> = {};
    const heads: Record<string, number> = {};
    for (let i = 0; i < indexFlat.length; i += 2) {
      if (indexFlat[i].startsWith('{h}')) heads[indexFlat[i].slice(3)] = Number(indexFlat[i + 1]);
      else indexed[indexFlat[i]] = Number(indexFlat[i + 1]);
    }
    const expectedIndex: Record<string, number> = {};
    for (const g of GROUPS) {
      const d = depth.get(g)!.length;
      if (d > 0 || activeCount.has(g) || pausedSet.has(g) || glimit[g] !== undefined || weights[g] !== undefined
        || rates[g] !== undefined) expectedIndex[g] = depthBand(d);
    }
    for (const g of Object.keys(indexed)) indexed[g] = depthBand(indexed[g]);
    // NOTE: not in compat mode: the foreign writer (as the reference) enqueues, claims and sets
    // ceilings without the lane index, so there it only holds for what our scripts did.
    if (!compat) expect({ when, index: indexed }).toEqual({ when, index: expectedIndex });
    // Its head entries (lua/includes/headBack.lua): every lane holding pending jobs has one, scored at
    // most its head's ready time; an entry of a lane with none is only left over, never another name.
    if (!compat) {
      for (const g of GROUPS) {
        const ids = depth.get(g)!;
        if (ids.length === 0) continue;
        const head = ids[0];
        const at = splitAt(rows.get(head)?.at);
        const ready = at.ready ?? (at.submitted || mintTimeOf(head));
        if (heads[g] === undefined || heads[g] > ready) fail(`lane ${g}'s head entry is ${heads[g]}, its head ${head} was ready at ${ready}`);
      }
      for (const g of Object.keys(heads)) if (!GROUPS.includes(g)) fail(`a head entry names ${g}, not a lane`);
    }

    // stats (read first, above): the totals agree with what the clients saw, the counts with the keys.
    const pendingNow = [...depth.values()].reduce((a, ids) => a + ids.length, 0);
    const queuePaused = (await client.hexists(k.meta, 'paused')) === 1;
    // NOTE: in compat mode the foreign writer keeps neither the totals nor the lane index: only the
    // counts read from the keys themselves are compared there.
    expect({ when, st }).toMatchObject({ when, st: compat
      ? { scheduled: schedule.length, active: active.length, dead: dead.length, ringLength: ring.length,
        pausedLanes: paused.length, paused: queuePaused }
      : {
        pending: pendingNow, scheduled: schedule.length, active: active.length, dead: dead.length,
        lanes: Object.keys(expectedIndex).length, ringLength: ring.length, pausedLanes: paused.length, paused: queuePaused,
        totals: { submitted: ledger.submitted.size, completed: ledger.completed.size, cancelled: ledger.cancelled.size },
      } });
    return live;
  }

  /** Sequential steps after which some lane was parked by its rate, or under a timed pause. */
  let parkedSeen = 0;
  let timedSeen = 0;
  /** The most kept rows one check saw, the kept rows found expired, and submits answered with a kept id. */
  let keptSeen = 0;
  let keptExpired = 0;
  let keptResubmitted = 0;

  /** The ring and the active counts only, in one round trip: cheap enough to run after every operation. */
  async function checkRing(q: string, when: string, compat = false): Promise<void> {
    const k = keysOf(q);
    // NOTE: the depths of the 100 lanes come from one read-only EVAL, a 100-command pipeline per
    // operation would make this phase several times slower.
    const pipe = client.pipeline().lrange(k.ring, 0, -1).smembers(k.ringSet).smembers(k.paused).hgetall(k.limit).hgetall(k.gactive)
      .zrange(k.active, 0, -1).eval(DEPTHS_LUA, GROUPS.length, ...GROUPS.map((g) => k.lane(g))).zrange(k.timers, 0, -1);
    const r = (await pipe.exec())!.map(([err, v]) => {
      if (err) throw err;
      return v;
    });
    const [ring, ringset, paused, glimit, gactive, active, depths, timers] = r as [
      string[], string[], string[], Record<string, string>, Record<string, string>, string[], number[], string[]];
    const parked = timers.filter((t) => t.startsWith('r:')).map((t) => t.slice(2));
    if (parked.length > 0) parkedSeen += 1;
    if (timers.some((t) => t.startsWith('p:'))) timedSeen += 1;
    const canServe = (g: string, i: number): boolean => depths[i] > 0 && !paused.includes(g)
      && (glimit[g] === undefined || Number(gactive[g] ?? 0) < Number(glimit[g]));
    const serviceable = GROUPS.filter((g, i) => canServe(g, i) && !parked.includes(g)).sort();
    const inSet = [...serviceable, ...parked].sort();
    // NOTE: in compat mode a parked lane may be on the ring early (see checkInvariants).
    const ringed = compat ? ring.filter((g) => !parked.includes(g) || !canServe(g, GROUPS.indexOf(g))) : ring;
    const problem = new Set(ring).size !== ring.length ? `duplicates in ring ${ring}`
      : JSON.stringify([...ringed].sort()) !== JSON.stringify(serviceable) ? `ring [${[...ring].sort()}] != serviceable [${serviceable}]`
        : !compat && JSON.stringify([...ringset].sort()) !== JSON.stringify(inSet) ? `ringset [${[...ringset].sort()}] != serviceable and parked [${inSet}]`
          : Object.values(gactive).reduce((n, v) => n + Number(v), 0) !== active.length ? `gactive ${JSON.stringify(gactive)} != ${active.length} leases`
            : undefined;
    if (problem) throw new Error(`[seed ${SEED}, ${when}] ${problem}`);
  }

  it.each(MODES)('8,000 random operations over 100 lanes from 4 clients keep every invariant, and lose nothing (%s)', async (mode) => {
    // NOTE: a failing plan shrinks (each try a run of its own), so the time limit leaves room for that.
    await fc.assert(fc.asyncProperty(PLAN, (plan) => runPlan(plan, mode !== 'default')), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  }, 60_000 * RUNS + 20 * 60_000);

  /** One plan from a fresh queue and ledger: every check after each round and each sequential step, then the drain. */
  async function runPlan(plan: Plan, compat: boolean): Promise<void> {
    const whole = isWhole(plan);
    parkedSeen = 0;
    timedSeen = 0;
    keptSeen = 0;
    keptExpired = 0;
    keptResubmitted = 0;
    const q = queues.queue();
    const ledger: Ledger = {
      submitted: new Set(), completed: new Set(), foreignCompleted: new Set(), knownDead: new Set(), kept: new Map(), dedupOf: new Map(), ops: {},
      cancelled: new Set(), unattributed: 0, cleanedKept: 0, forgivenKept: 0, order: [],
    };
    const admitted = (id: string) => {
      if (!ledger.submitted.has(id)) ledger.order.push(id);
      ledger.submitted.add(id);
    };
    const conns = [...Array(CLIENTS)].map(() => server.client());
    // Half the clients keep their completed rows (the first, which drains at the end, does not).
    const keepOf = new Map<LanesService, number>();
    const services = conns.map((c, i) => {
      const keepCompletedMs = i < CLIENTS / 2 ? 0 : KEEP_MS;
      const lanes = lanesOn(c, {
        maxAttempts: 3, leaseMs: 40, backoff: { delayMs: 5, factor: 2, maxDelayMs: 20 }, keepCompletedMs, ...(compat ? { compat: 'echomq' as const } : {}),
      });
      keepOf.set(lanes, keepCompletedMs);
      return lanes;
    });
    const foreign = new ForeignWriter(client);
    const group = (rnd: () => number) => GROUPS[Math.floor(rnd() * rnd() * GROUPS.length)]; // skewed: low lanes are hot
    const int = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    // NOTE: while the queue has no ceiling at all, the batch scripts learn so once per call and skip
    // every per-lane ceiling read (learnSettings), so some stretches of the run have none: the
    // ceiling ops then draw their numbers as usual and set nothing.
    let ceilings = true;
    const withoutCeilings = async () => {
      ceilings = false;
      for (const g of GROUPS) {
        await services[0].ordered(q, g, false);
        await services[0].limit(q, g, null);
      }
      expect(await client.exists(keysOf(q).limit)).toBe(0);
    };
    /**
     * A submit refused by a lane's maxDepth: LANE_FULL naming the lane (and for one submit, its
     * group argument); it admitted nothing, which the totals and the leftover rows check.
     */
    const FULL = Symbol('full');
    const refusedFull = (g?: string) => (err: unknown): typeof FULL => {
      if (!(err instanceof EchoMqError) || err.code !== 'LANE_FULL') throw err;
      if (g !== undefined) expect({ argument: err.argument, group: err.group }).toEqual({ argument: 'group', group: g });
      else expect(err.argument).toMatch(/^items\[\d+\]\.group$/);
      ledger.ops.laneFull = (ledger.ops.laneFull ?? 0) + 1;
      return FULL;
    };
    const takeHeld = (rnd: () => number, held: Held[]): Held | undefined =>
      held.length ? held.splice(Math.floor(rnd() * held.length), 1)[0] : undefined;
    const keep = (held: Held[], jobs: { id: string; attempt: number }[]) => jobs.forEach((j) => held.push({ id: j.id, attempt: j.attempt }));
    /** Into the ledger: a completion the engine acknowledged, kept `keepMs` with `result` when that is > 0. */
    const completed = (id: string, keepMs: number, result: unknown, since: number) => {
      if (ledger.completed.has(id)) throw new Error(`${id} completed twice`);
      ledger.completed.add(id);
      if (keepMs > 0) ledger.kept.set(id, { result: result === undefined ? '' : JSON.stringify(result), keepMs, since });
    };
    /** A kept job surely not yet expired (completed less than half its keep ago), or undefined. */
    const freshKept = (rnd: () => number): string | undefined => {
      const now = Date.now();
      const fresh = [...ledger.kept].filter(([, kept]) => now - kept.since < kept.keepMs / 2);
      return fresh.length ? fresh[Math.floor(rnd() * fresh.length)][0] : undefined;
    };

    const ops: [number, string, Op][] = [
      [14, 'submit', async (l, rnd) => {
        const r = rnd();
        const dedupKey = r < 0.15 ? `dk${int(rnd, 0, 30)}` : undefined;
        const opts = dedupKey ? { dedupKey } : r < 0.3 ? { delayMs: int(rnd, 1, 30) }
          : r < 0.4 ? { maxAttempts: int(rnd, 1, 4) } : undefined;
        const g = group(rnd);
        const id = await l.submit(q, g, { r }, opts).catch(refusedFull(g));
        if (id === FULL) return;
        admitted(id);
        if (dedupKey) ledger.dedupOf.set(id, dedupKey);
      }],
      [4, 'submitKept', async (l, rnd) => {
        // A kept job's jobId or dedupKey again (alone, with a new jobId, or in a batch): its id comes
        // back and nothing is admitted; a second admission would have made its row live again.
        const id = freshKept(rnd);
        if (!id) return;
        const key = ledger.dedupOf.get(id);
        const r = rnd();
        let got: string;
        if (key !== undefined && r < 0.5) {
          got = await l.submit(q, group(rnd), 'again', { dedupKey: key, ...(rnd() < 0.5 ? { jobId: mintJobId() } : {}) });
        } else if (r < 0.75) {
          got = await l.submit(q, group(rnd), 'again', { jobId: id, delayMs: rnd() < 0.3 ? int(rnd, 1, 30) : undefined });
        } else {
          const ids = await l.submitMany(q, [{ group: group(rnd), payload: 'new' }, { group: group(rnd), payload: 'again', opts: { jobId: id } }])
            .catch(refusedFull());
          if (ids === FULL) return;
          admitted(ids[0]);
          got = ids[1];
        }
        expect(got).toBe(id);
        expect(await client.hget(keysOf(q).job(id), 'state')).toBe('completed');
        keptResubmitted += 1;
      }],
      [6, 'submitMany', async (l, rnd) => {
        const own = mintJobId();
        const items = [...Array(int(rnd, 1, 8))].map(() => ({ group: group(rnd), payload: { n: rnd() } as unknown, opts: undefined as object | undefined }));
        items.push({ group: group(rnd), payload: 'own', opts: { jobId: own } }, { group: group(rnd), payload: 'again', opts: { jobId: own } });
        if (rnd() < 0.3) items.push({ group: group(rnd), payload: 'late', opts: { delayMs: int(rnd, 1, 25) } });
        const ids = await l.submitMany(q, items as never).catch(refusedFull());
        if (ids === FULL) return;
        expect(ids[ids.length - (items.length - items.findIndex((i) => i.payload === 'again'))]).toBe(own);
        ids.forEach((id) => admitted(id));
      }],
      [16, 'claim', async (l, rnd, held) => {
        const job = await l.claim(q, { leaseMs: int(rnd, 5, 80) });
        if (job) keep(held, [job]);
      }],
      [3, 'claimMany', async (l, rnd, held) => keep(held, (await l.claimMany(q, int(rnd, 1, 6), { leaseMs: int(rnd, 5, 80) })).jobs)],
      [8, 'wclaim', async (l, rnd, held) => keep(held, await l.wclaim(q, { leaseMs: int(rnd, 5, 80), max: rnd() < 0.3 ? int(rnd, 1, 3) : undefined }))],
      [3, 'wclaimMany', async (l, rnd, held) => {
        const { turns } = await l.wclaimMany(q, int(rnd, 1, 5), { leaseMs: int(rnd, 5, 80), untilJobs: rnd() < 0.5 ? int(rnd, 1, 8) : undefined });
        turns.forEach((t) => keep(held, t));
      }],
      [20, 'complete', async (l, rnd, held) => {
        const h = takeHeld(rnd, held);
        if (!h) return;
        const stale = rnd() < 0.05;
        const result = randomResult(rnd);
        const since = Date.now();
        const ok = await l.complete(q, h.id, stale ? h.attempt + 1_000 : h.attempt, result);
        if (stale) expect(ok).toBe(false);
        if (ok) completed(h.id, keepOf.get(l)!, result, since);
      }],
      [5, 'completeMany', async (l, rnd, held) => {
        const batch = [...Array(int(rnd, 1, 5))].map(() => takeHeld(rnd, held)).filter((h): h is Held => h !== undefined);
        if (batch.length === 0) return;
        const acks = batch.map((h) => ({ jobId: h.id, token: h.attempt, result: randomResult(rnd) }));
        // Sometimes one ack twice in the batch: only the first can count.
        if (rnd() < 0.2) acks.push({ ...acks[0], result: 'twice' });
        // The batch's own keepCompletedMs (either way), or the client's.
        const r = rnd();
        const keepMs = r < 0.25 ? 0 : r < 0.5 ? KEEP_MS : undefined;
        const since = Date.now();
        const done = await l.completeMany(q, acks, keepMs === undefined ? undefined : { keepCompletedMs: keepMs });
        if (acks.length > batch.length) expect(done[batch.length]).toBe(false);
        batch.forEach((h, i) => done[i] && completed(h.id, keepMs ?? keepOf.get(l)!, acks[i].result, since));
      }],
      [8, 'fail', async (l, rnd, held) => {
        const h = takeHeld(rnd, held);
        if (!h) return;
        const outcome = await l.fail(q, h.id, h.attempt, new Error(`failed ${h.attempt}`), { dead: rnd() < 0.1 });
        if (outcome === 'dead') ledger.knownDead.add(h.id);
      }],
      [2, 'progress', async (l, rnd, held) => {
        const h = held[Math.floor(rnd() * held.length)];
        if (h) await l.progress(q, h.id, h.attempt, rnd() < 0.5 ? rnd() : { step: int(rnd, 1, 9) });
      }],
      [4, 'cancel', async (l, rnd) => {
        // Any id a submit returned that is not known to be settled: pending, scheduled, dead, or active (refused).
        for (let tries = 0; tries < 5 && ledger.order.length > 0; tries++) {
          const id = ledger.order[Math.floor(rnd() * ledger.order.length)];
          if (ledger.completed.has(id) || ledger.cancelled.has(id)) continue;
          if (await l.cancel(q, id)) {
            if (ledger.completed.has(id) || ledger.cancelled.has(id)) throw new Error(`${id} cancelled after it was settled`);
            ledger.cancelled.add(id);
            ledger.knownDead.delete(id);
          }
          return;
        }
      }],
      [1, 'drain', async (l, rnd) => {
        // NOTE: awaited first: `x += await f()` reads x before the await, and other clients add to it meanwhile.
        const n = await l.drain(q, rnd() < 0.97 ? { group: group(rnd) } : undefined);
        ledger.unattributed += n;
      }],
      [1, 'cleanDead', async (l, rnd) => {
        const n = await l.clean(q, 'dead', { olderThanMs: int(rnd, 0, 50), limit: int(rnd, 1, 5) });
        ledger.unattributed += n;
      }],
      [1, 'cleanCompleted', async (l, rnd) => {
        // NOTE: only rows completed over 1.8 s ago (they expire at 2 s), so never one that submitKept may pick (under KEEP_MS / 2 old), and most still expire by themselves.
        const since = Date.now();
        const n = await l.clean(q, 'completed', { olderThanMs: 1_800, limit: int(rnd, 1, 3) });
        ledger.cleanedKept += n;
        const old = [...ledger.kept].filter(([, kept]) => kept.since < since - 1_700);
        const gone = await Promise.all(old.map(async ([id]) => (await client.exists(keysOf(q).job(id))) === 0));
        // A row gone before its time was cleaned (at most as many as clean said); one whose time is up
        // may have expired by itself and stays for the check to count.
        old.forEach(([id, kept], i) => {
          if (!gone[i] || kept.since + kept.keepMs <= Date.now()) return;
          // NOTE: two clients' cleans may both find it gone: it is let go once.
          if (ledger.kept.delete(id)) ledger.forgivenKept += 1;
        });
      }],
      [5, 'extend', async (l, rnd, held) => {
        const h = held[Math.floor(rnd() * held.length)];
        if (h) await l.extend(q, h.id, h.attempt, int(rnd, 5, 80));
      }],
      [2, 'release', async (l, rnd, held) => {
        const h = takeHeld(rnd, held);
        if (h) await l.release(q, h.id, h.attempt);
      }],
      [4, 'reap', async (l) => void (await l.reap(q))],
      [3, 'weight', async (l, rnd) => l.weight(q, group(rnd), int(rnd, 1, 4))],
      [2, 'maxDepth', async (l, rnd) => l.maxDepth(q, group(rnd), rnd() < 0.4 ? null : int(rnd, 1, 6))],
      [4, 'limit', async (l, rnd) => {
        const [g, max] = [group(rnd), rnd() < 0.4 ? null : int(rnd, 1, 4)];
        if (ceilings) await l.limit(q, g, max);
      }],
      // NOTE: an ordered lane's ceiling is 1, or 0 while its failed head waits (see orderedLane).
      [2, 'ordered', async (l, rnd) => {
        const [g, on] = [group(rnd), rnd() < 0.5];
        if (ceilings) await l.ordered(q, g, on);
      }],
      [3, 'pause', async (l, rnd) => l.pause(q, group(rnd))],
      [3, 'timedPause', async (l, rnd) => l.pause(q, group(rnd), { forMs: int(rnd, 1, 40), reason: rnd() < 0.5 ? 'why' : undefined })],
      [3, 'rate', async (l, rnd) => l.rate(q, group(rnd), rnd() < 0.3 ? null : { max: int(rnd, 1, 5), perMs: int(rnd, 5, 60) })],
      [4, 'resume', async (l, rnd) => l.resume(q, group(rnd))],
      [3, 'retryDead', async (l, rnd) => {
        if (ledger.knownDead.size === 0 || rnd() < 0.2) {
          (await l.dead(q, { count: 50 })).forEach((j) => ledger.knownDead.add(j.id));
          return;
        }
        const ids = [...ledger.knownDead];
        const id = ids[Math.floor(rnd() * ids.length)];
        ledger.knownDead.delete(id);
        await l.retryDead(q, id);
      }],
    ];
    // The foreign writer's operations, as the reference runs them: it admits into lanes, claims in
    // ring order (and completes what it claimed), pauses, resumes and caps lanes, pauses the queue.
    const foreignOps: [number, string, Op][] = [
      [6, 'foreign enqueue', async (_l, rnd) => {
        const id = mintJobId();
        await foreign.enqueue(q, group(rnd), id, JSON.stringify({ foreign: rnd() }));
        admitted(id);
      }],
      [6, 'foreign claim', async (_l, rnd, held) => {
        const job = await foreign.claim(q, int(rnd, 5, 80));
        if (job) held.push({ id: job.id, attempt: job.attempt, foreign: true });
      }],
      [5, 'foreign complete', async (_l, rnd, held) => {
        const i = held.findIndex((h) => h.foreign);
        if (i < 0) return;
        const [h] = held.splice(i, 1);
        // NOTE: the reference keeps no completed row (it has no keepCompletedMs): its completes delete.
        if (await foreign.complete(q, h.id, h.attempt)) {
          completed(h.id, 0, undefined, Date.now());
          ledger.foreignCompleted.add(h.id);
        }
      }],
      [2, 'foreign pause', async (_l, rnd) => foreign.pause(q, group(rnd))],
      [2, 'foreign resume', async (_l, rnd) => foreign.resume(q, group(rnd))],
      [2, 'foreign limit', async (_l, rnd) => {
        const [g, max] = [group(rnd), int(rnd, 1, 4)];
        if (ceilings) await foreign.limit(q, g, max);
      }],
      [1, 'foreign pauseQueue', async () => foreign.pauseQueue(q)],
      [1, 'resumeQueue', async (l) => l.resumeQueue(q)],
      [1, 'pauseQueue', async (l) => l.pauseQueue(q)],
      [2, 'foreign resumeQueue', async () => foreign.resumeQueue(q)],
    ];
    if (compat) ops.push(...foreignOps);
    const total = ops.reduce((n, [w]) => n + w, 0);
    const pick = (rnd: () => number): [string, Op] => {
      let x = rnd() * total;
      for (const [w, name, op] of ops) {
        x -= w;
        if (x < 0) return [name, op];
      }
      return [ops[0][1], ops[0][2]];
    };

    /** What a whole plan must have exercised: rates and timed pauses running, leases reaped, jobs dead and back, kept rows. */
    const expectCoverage = async (): Promise<void> => {
      // Rates parked lanes and timed pauses were running during the checks, not just set.
      expect(parkedSeen).toBeGreaterThan(100);
      expect(timedSeen).toBeGreaterThan(100);
      const opCount = Object.values(ledger.ops).reduce((a, b) => a + b, 0);
      expect(opCount).toBeGreaterThanOrEqual(5_000);
      // The mix really exercised the engine: leases expired and were reaped, jobs died and came back.
      const stats = await services[0].stats(q);
      expect(stats.totals.completed).toBeGreaterThan(100);
      // Kept rows were there to check, some expired mid-run, and kept ids were submitted again.
      expect(keptSeen).toBeGreaterThan(50);
      expect(keptExpired).toBeGreaterThan(50);
      expect(keptResubmitted).toBeGreaterThan(50);
      expect(stats.totals.retried).toBeGreaterThan(10);
      expect(stats.totals.dead).toBeGreaterThan(0);
    };
    try {
      const helds: Held[][] = services.map(() => []);
      const step = async (c: number, seed: number): Promise<string> => {
        const rnd = seeded(seed);
        const [name, op] = pick(rnd);
        ledger.ops[name] = (ledger.ops[name] ?? 0) + 1;
        await op(services[c], rnd, helds[c]);
        return name;
      };
      // Four clients at once; every invariant checked whenever they pause. Rounds 2 and 4 run
      // without ceilings.
      for (let round = 1; round <= ROUNDS; round++) {
        if (round % 2 === 0) await withoutCeilings();
        else ceilings = true;
        await Promise.all(services.map(async (_, c) => {
          for (const seed of plan.rounds[round - 1][c]) await step(c, seed);
        }));
        await checkInvariants(q, ledger, `after round ${round}`, compat);
      }
      // One client at a time, the ring checked after every single operation, so that a transition
      // that leaves the ring wrong is caught before a later one happens to repair it.
      // The first third of it without ceilings.
      await withoutCeilings();
      for (let n = 0; n < plan.sequential.length; n++) {
        if (n === Math.floor(plan.sequential.length / 3)) ceilings = true;
        const name = await step(n % CLIENTS, plan.sequential[n]);
        await checkRing(q, `sequential op ${n} (${name})`, compat);
      }
      await checkInvariants(q, ledger, 'after the sequential phase', compat);
      // A whole plan covered the engine (a shrunk one need not: only the invariants must still hold).
      if (whole) await expectCoverage();

      // Drain: every lane back in service, every lease and backoff past; then everything completes.
      const lanes = services[0];
      await lanes.resumeQueue(q);
      for (const g of GROUPS) {
        await lanes.resume(q, g);
        await lanes.ordered(q, g, false);
        await lanes.limit(q, g, null);
        await lanes.rate(q, g, null);
        await lanes.maxDepth(q, g, null);
      }
      if (whole) {
        // Ceilings were set, and refused submits, as LANE_FULL writing nothing.
        expect(ledger.ops.maxDepth).toBeGreaterThan(20);
        expect(ledger.ops.ordered).toBeGreaterThan(20);
        expect(ledger.ops.laneFull).toBeGreaterThan(20);
        expect(ledger.ops.rate).toBeGreaterThan(50);
        expect(ledger.ops.timedPause).toBeGreaterThan(50);
      }
      await checkInvariants(q, ledger, 'after resuming every lane', compat);
      for (let pass = 0; pass < 10; pass++) {
        const k = keysOf(q);
        const last = await client.zrange(k.active, -1, -1, 'WITHSCORES');
        const due = await client.zrange(k.schedule, -1, -1, 'WITHSCORES');
        const until = Math.max(Number(last[1] ?? 0), Number(due[1] ?? 0), await serverTimeMs(client));
        await waitPastServerTime(client, until);
        await lanes.reap(q, { maxAttempts: 1_000_000 });
        await lanes.promote(q);
        for (const j of await lanes.dead(q, { count: 100_000 })) await lanes.retryDead(q, j.id);
        for (;;) {
          const { jobs } = await lanes.claimMany(q, 100);
          if (jobs.length === 0) break;
          for (const j of jobs) {
            expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
            completed(j.id, 0, undefined, Date.now());
          }
        }
        if ((await checkInvariants(q, ledger, `after drain pass ${pass}`, compat)) === 0) break;
      }
      expect(ledger.completed.size + ledger.cancelled.size).toBe(ledger.submitted.size);
      // cancel, drain and clean really ran, and removed jobs.
      if (whole) expect(ledger.cancelled.size).toBeGreaterThan(50);
      const left = (await client.keys(`${keysOf(q).base}*`)).map((key) => key.slice(keysOf(q).base.length)).sort();
      // NOTE: the foreign writer keeps no dedup index, so dedup keys of jobs it completed stay behind.
      const leftovers = compat ? ['gweight', 'stats', 'wake', 'lanes', 'dedup'] : ['gweight', 'stats', 'wake', 'lanes'];
      // The last minute's per-second completion buckets (stats:<second>) stay, each until it expires.
      // So do the shares' per-10-second served buckets (served:<n>, lua/includes/servedShare.lua).
      const buckets = left.filter((key) => /^(stats|served|work):\d+$/.test(key));
      for (const key of buckets) expect(await client.pttl(keysOf(q).base + key)).toBeGreaterThan(0);
      // Kept rows not yet expired stay too (the last check found each as it should be).
      const keptIdOf = new Map(await Promise.all(left.filter((key) => key.startsWith('kept:'))
        .map(async (key) => [key, await client.hget(keysOf(q).base + key, 'id')] as const)));
      const keptLeft = (key: string) => (key.startsWith('job:') ? ledger.kept.has(key.slice('job:'.length))
        : keptIdOf.has(key) && (keptIdOf.get(key) === null || ledger.kept.has(keptIdOf.get(key)!)));
      expect(left.filter((key) => !leftovers.includes(key) && !buckets.includes(key) && !keptLeft(key))).toEqual([]);
      // The lane index keeps exactly the lanes that still have a setting (weights), at depth 0.
      // NOTE: not in compat mode: the foreign writer enqueues, claims and sets ceilings without it.
      if (!compat) {
        const weighted = Object.keys(await client.hgetall(keysOf(q).weight)).sort();
        // NOTE: a weighted lane emptied by a claim may keep its head entry (the read that finds it empty removes it).
        const indexed = (await client.zrange(keysOf(q).index, 0, -1, 'WITHSCORES'))
          .flatMap((v, i, all) => (i % 2 === 0 && !v.startsWith('{h}') ? [v, all[i + 1]] : []));
        expect(indexed.filter((_, i) => i % 2 === 0).sort()).toEqual(weighted);
        expect(new Set(indexed.filter((_, i) => i % 2 === 1))).toEqual(new Set(weighted.length ? ['0'] : []));
      }
    } finally {
      await Promise.all(conns.map((c) => c.quit()));
      // NOTE: every plan (each try of a shrink too) starts on an empty server: the checks read keys by pattern.
      await queues.dropAll(client);
    }
  }
});
