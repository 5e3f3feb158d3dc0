import type IORedis from 'ioredis';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import type { LaneScripts } from '../../lib/scripts/lane-scripts';
import { tenantEntry } from '../../lib/redis/lane-keys';
import { shardOf } from '../../lib/shards/shard-hash';
import { dirty, drain, engineFixture, keysOf, rejects } from '../support/engine';
import { lanesOn, lanesPerShard } from '../support/lanes';

const SHARDS = 4;

/**
 * Tenants on a sharded queue: a tenant and all its lanes live in the tenant's shard; the lane's
 * home shard (its own name's) keeps its binding, so a submit naming no tenant finds the lane.
 */
describe('tenants on a sharded queue (shardsOnOneServer)', () => {
  const engine = engineFixture({ shardsOnOneServer: true });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  /** Another process: it knows no binding this one learned. */
  const fresh = (): LanesService => lanesOn(client, { shardsOnOneServer: true });
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** A tenant name of shard `t` and, for it, lane names whose home is another shard (`away`) and the tenant's own (`near`). */
  const names = (t: number): { tenant: string; away: string[]; near: string[] } => {
    const tenant = lanesPerShard(SHARDS, 1, 'tenant-')[t][0];
    const byShard = lanesPerShard(SHARDS, 3, `lane-of-${tenant}-`);
    return { tenant, away: byShard.filter((_, i) => i !== t).flat(), near: byShard[t] };
  };

  /** Makes `service` run `race` once, right after its first moveLane call in `mode` (its record in the tenant's shard) is written. */
  const raceAfter = (service: LanesService, mode: 'out' | 'release', race: () => Promise<unknown>): { ran: boolean } => {
    const scripts = (service as unknown as { ctx: { scripts: LaneScripts } }).ctx.scripts;
    const moveLane = scripts.moveLane.bind(scripts);
    const state = { ran: false };
    scripts.moveLane = async (...args: Parameters<LaneScripts['moveLane']>) => {
      const r = await moveLane(...args);
      if (args[3] === mode && !state.ran) {
        state.ran = true;
        await race();
      }
      return r;
    };
    return state;
  };

  /** A sharded queue, tenant a (shard 1), tenant b (shard 2), and a lane `g` whose home shard is neither a's nor b's. */
  const laneBetween = async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant: a, away } = names(1);
    return { q, k: keysOf(q), a, b: names(2).tenant, g: away.find((x) => shardOf(x, SHARDS) !== 2)! };
  };

  it('fairness 6 over the shards: A\'s 20 lanes, B\'s one and five free lanes each get about one claim in seven, A\'s over its lanes', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const items: { group: string; payload: number; opts?: { tenant: string } }[] = [];
    for (let l = 0; l < 20; l++) for (let i = 0; i < 50; i++) items.push({ group: `a${l}`, payload: i, opts: { tenant: 'A' } });
    for (let i = 0; i < 50; i++) items.push({ group: 'b0', payload: i, opts: { tenant: 'B' } });
    for (let l = 0; l < 5; l++) for (let i = 0; i < 10; i++) items.push({ group: `free${l}`, payload: i });
    await lanes.submitMany(q, items);
    const who = (group: string): string => (group.startsWith('a') ? 'A' : group.startsWith('b') ? 'B' : group);
    const got = new Map<string, number>();
    const aLanes = new Set<string>();
    for (let i = 0; i < 70; i++) {
      const job = (await lanes.claim(q))!;
      got.set(who(job.group), (got.get(who(job.group)) ?? 0) + 1);
      if (job.group.startsWith('a')) aLanes.add(job.group);
      await lanes.complete(q, job.id, job.attempt);
    }
    console.log(`[sharded] fairness 6 over ${SHARDS} shards, first 70 claims: ${[...got].map(([w, n]) => `${w} ${n}`).join(', ')}; A over ${aLanes.size} lanes`);
    for (const w of ['A', 'B', 'free0', 'free1', 'free2', 'free3', 'free4']) expect(Math.abs((got.get(w) ?? 0) - 10)).toBeLessThanOrEqual(2);
    expect(aLanes.size).toBe(got.get('A'));
  });

  it('a tenant and all its lanes live in the tenant\'s shard; a lane whose home is another shard is bound there', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away, near } = names(2);
    const k = keysOf(q);
    const at = k.shardKeys(2);
    for (const g of [...away, ...near]) await lanes.submit(q, g, { g }, { tenant });
    for (const g of [...away, ...near]) {
      expect(await client.zcard(at.lane(g))).toBe(1);
      expect(await client.get(at.laneTenant(g))).toBe(tenant);
      const home = k.shardKeys(shardOf(g, SHARDS));
      expect(await client.hget(home.bound, g)).toBe(tenant);
      if (home !== at) expect(await client.exists(home.lane(g))).toBe(0);
    }
    // The tenant's shard's ring holds the tenant once, its own ring every lane.
    expect(await client.lrange(at.ring, 0, -1)).toEqual([tenantEntry(tenant)]);
    expect((await client.lrange(at.tenantRing(tenant), 0, -1)).sort()).toEqual([...away, ...near].sort());
    expect(await lanes.tenant(q, tenant)).toMatchObject({ tenant, lanes: away.length + near.length, pending: away.length + near.length, inRing: true });
    expect((await lanes.lane(q, away[0])).tenant).toBe(tenant);
    expect((await fresh().lane(q, away[0])).tenant).toBe(tenant);
  });

  it('a submit naming no tenant, from a process that never saw the lane, goes to the lane in its tenant\'s shard (FIFO kept)', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away } = names(1);
    const [a, b] = away;
    await lanes.submit(q, a, { i: 0 }, { tenant });
    await lanes.submitMany(q, [{ group: b, payload: { i: 0 }, opts: { tenant } }, { group: 'loose', payload: { i: 0 } }]);
    const other = fresh();
    await other.submit(q, a, { i: 1 });
    await other.submitMany(q, [{ group: b, payload: { i: 1 } }, { group: 'loose', payload: { i: 1 } }, { group: a, payload: { i: 2 } }]);
    const at = keysOf(q).shardKeys(1);
    expect(await client.zcard(at.lane(a))).toBe(3);
    expect(await client.zcard(at.lane(b))).toBe(2);
    expect(await client.get(at.laneTenant(a))).toBe(tenant);
    expect(await client.exists(keysOf(q).shardKeys(shardOf('loose', SHARDS)).laneTenant('loose'))).toBe(0);
    const served = await drain(lanes, q);
    const order = (g: string): number[] => served.filter((j) => j.group === g).map((j) => (j.payload as { i: number }).i);
    expect(order(a)).toEqual([0, 1, 2]);
    expect(order(b)).toEqual([0, 1]);
    expect(order('loose')).toEqual([0, 1]);
  });

  it('refuses, writing nothing: another tenant for a lane holding jobs under its tenant, a tenant for a lane holding jobs under none', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away } = names(0);
    const other = names(3).tenant;
    await lanes.submit(q, away[0], 1, { tenant });
    await lanes.submit(q, away[1], 1);
    const before = await dirty(client);
    for (const service of [lanes, fresh()]) {
      const held = await rejects(service.submit(q, away[0], 2, { tenant: other }));
      expect(held.argument).toBe('opts.tenant');
      expect(held.message).toContain(`under tenant "${tenant}"`);
    }
    const loose = await rejects(lanes.submit(q, away[1], 2, { tenant }));
    expect(loose.argument).toBe('opts.tenant');
    expect(loose.message).toContain('under no tenant');
    const many = await rejects(lanes.submitMany(q, [{ group: 'x', payload: 1 }, { group: away[1], payload: 2, opts: { tenant } }]));
    expect(many.argument).toBe('items[1].opts.tenant');
    expect(await dirty(client)).toBe(before);
    // The bound lane still takes its own tenant, and jobs naming none, in the tenant's shard.
    await lanes.submit(q, away[0], 3, { tenant });
    await fresh().submit(q, away[0], 4);
    expect(await client.zcard(keysOf(q).shardKeys(shardOf(tenant, SHARDS)).lane(away[0]))).toBe(3);
    expect((await drain(lanes, q)).map((j) => j.group).sort()).toEqual([away[0], away[0], away[0], away[1]].sort());
  });

  it('a lane that holds no job takes another tenant: it moves to that tenant\'s shard with its settings, and processes that knew the old one follow', async () => {
    const { q, k, a, b, g } = await laneBetween();
    const stale = fresh();
    await stale.submit(q, g, { i: 0 }, { tenant: a });
    await lanes.weight(q, g, 3);
    await drain(lanes, q);
    // Another process names tenant b: the lane moves (it held no job), its weight with it.
    await lanes.submit(q, g, { i: 1 }, { tenant: b });
    expect(await client.hget(k.shardKeys(shardOf(g, SHARDS)).bound, g)).toBe(b);
    expect(await client.zcard(k.shardKeys(2).lane(g))).toBe(1);
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: b, weight: 3, pending: 1 });
    expect(await client.hget(k.shardKeys(1).weight, g)).toBeNull();
    // The stale process still thinks a: a setting it makes lands where the lane is now.
    await stale.limit(q, g, 5);
    expect((await lanes.lane(q, g)).limit).toBe(5);
    await stale.limit(q, g, null);
    // And naming none, its job goes to the lane under b.
    await stale.submit(q, g, { i: 2 });
    await stale.submitMany(q, [{ group: g, payload: { i: 3 } }]);
    expect(await client.zcard(k.shardKeys(2).lane(g))).toBe(3);
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(0);
    // Naming a again while the lane holds jobs under b is refused, from either process.
    for (const service of [stale, lanes]) expect((await rejects(service.submit(q, g, 9, { tenant: a }))).argument).toBe('opts.tenant');
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([1, 2, 3]);
    // Emptied, the stale process moves it back to a (its settings too), and the other follows.
    await stale.submitMany(q, [{ group: g, payload: { i: 4 }, opts: { tenant: a } }]);
    await lanes.submit(q, g, { i: 5 });
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: a, weight: 3, pending: 2 });
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(2);
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([4, 5]);
  });

  it('a lane holding only a delayed or a dead job keeps its tenant and its shard: another tenant is refused, writing nothing', async () => {
    const { q, k, a, b, g } = await laneBetween();
    const refused = async () => {
      const before = await dirty(client);
      for (const service of [lanes, fresh()]) expect((await rejects(service.submit(q, g, 'refused', { tenant: b }))).argument).toBe('opts.tenant');
      expect(await dirty(client)).toBe(before);
    };
    const later = await lanes.submit(q, g, { i: 0 }, { tenant: a, delayMs: 60_000 });
    await refused();
    expect(await lanes.cancel(q, later)).toBe(true);
    await lanes.submit(q, g, { i: 1 }, { tenant: a, maxAttempts: 1 });
    let job: LaneJob | null = null;
    for (let i = 0; i < 2 * SHARDS && !job; i++) job = await lanes.claim(q);
    expect(await lanes.fail(q, job!.id, job!.attempt, 'boom')).toBe('dead');
    await refused();
    expect(await client.hget(k.shardKeys(shardOf(g, SHARDS)).bound, g)).toBe(a);
    // The dead job cleaned, the lane holds nothing: it moves to b's shard.
    expect(await lanes.clean(q, 'dead')).toBe(1);
    await lanes.submit(q, g, { i: 2 }, { tenant: b });
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: b, pending: 1 });
    expect(await client.zcard(k.shardKeys(2).lane(g))).toBe(1);
  });

  it('a move that died half way (recorded gone, never bound anew) is healed by the next submit: the home\'s binding is the truth', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const k = keysOf(q);
    const { tenant: a, away } = names(1);
    const g = away[0];
    await lanes.submit(q, g, 0, { tenant: a });
    await drain(lanes, q);
    await client.hset(k.shardKeys(1).unbound, g, a);
    await lanes.submit(q, g, 1, { tenant: a });
    await fresh().submit(q, g, 2);
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(2);
    expect(await client.hget(k.shardKeys(1).unbound, g)).toBeNull();
  });

  it('a lane with settings in its home shard takes them along when a submit names a tenant of another shard', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away } = names(3);
    const k = keysOf(q);
    const home = k.shardKeys(shardOf(away[0], SHARDS));
    await lanes.weight(q, away[0], 3);
    await lanes.limit(q, away[0], 1);
    expect(await client.zscore(home.index, away[0])).toBe('0');
    await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: away[0], payload: i, opts: { tenant } })));
    const at = k.shardKeys(3);
    expect(await client.zscore(home.index, away[0])).toBeNull();
    expect(await client.hget(at.weight, away[0])).toBe('3');
    expect(await lanes.lane(q, away[0])).toMatchObject({ weight: 3, limit: 1, tenant, pending: 3 });
    expect((await lanes.claimMany(q, 5)).jobs).toHaveLength(1);
  });

  it('tenant settings work in the tenant\'s shard: a limit holds, a pause parks, a weight takes more turns; topTenants gathers the shards', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const tenants = lanesPerShard(SHARDS, 1, 'tenant-').map((l) => l[0]);
    const items = tenants.flatMap((tenant, t) => Array.from({ length: 3 }, (_, l) => l).flatMap((l) =>
      Array.from({ length: 4 + t }, (_, i) => ({ group: `${tenant}-lane-${l}`, payload: { i }, opts: { tenant } }))));
    await fresh().submitMany(q, items);
    expect(await lanes.topTenants(q, 3)).toEqual([tenants[3], tenants[2], tenants[1]].map((tenant, i) => ({ tenant, pending: 3 * (7 - i) })));

    await lanes.tenantLimit(q, tenants[0], 1);
    await lanes.pauseTenant(q, tenants[1]);
    expect(await fresh().tenant(q, tenants[0])).toMatchObject({ limit: 1, lanes: 3, pending: 12 });
    expect(await fresh().tenant(q, tenants[1])).toMatchObject({ paused: true, inRing: false });
    const held: LaneJob[] = [];
    for (let i = 0; i < 40; i++) {
      const { jobs } = await lanes.claimMany(q, 4);
      held.push(...jobs);
    }
    const tenantOf = (j: LaneJob): string => j.group.replace(/-lane-\d+$/, '');
    const of = (t: number): LaneJob[] => held.filter((j) => tenantOf(j) === tenants[t]);
    expect(of(0)).toHaveLength(1);
    expect(of(1)).toHaveLength(0);
    expect(of(2)).toHaveLength(18);
    expect(of(3)).toHaveLength(21);
    await lanes.resumeTenant(q, tenants[1]);
    await lanes.completeMany(q, held.map((j) => ({ jobId: j.id, token: j.attempt })));
    expect((await lanes.claimMany(q, 100)).jobs.map(tenantOf).sort()).toEqual([
      tenants[0], ...Array(15).fill(tenants[1])].sort());
  });

  it('a weighted tenant takes w turns of its own ring per turn of its shard\'s ring', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away } = names(2);
    const rival = lanesPerShard(SHARDS, 1, 'rival-')[2][0];
    await lanes.tenantWeight(q, tenant, 3);
    expect((await lanes.tenant(q, tenant)).weight).toBe(3);
    await lanes.submitMany(q, [
      ...away.slice(0, 3).flatMap((g) => Array.from({ length: 6 }, (_, i) => ({ group: g, payload: i, opts: { tenant } }))),
      ...Array.from({ length: 18 }, (_, i) => ({ group: 'rival-lane', payload: i, opts: { tenant: rival } })),
    ]);
    // Each turn of the shard's ring: three of the tenant's lanes, one job of the rival's.
    const jobs = (await lanes.wclaimMany(q, 8)).turns.flat();
    expect(jobs.filter((j) => j.group !== 'rival-lane')).toHaveLength(12);
    expect(jobs.filter((j) => j.group === 'rival-lane')).toHaveLength(4);
  });

  it('a lane that let its tenant go (no job, no setting) takes none from a submit naming none, as unsharded: it goes home, and processes that knew the binding follow', async () => {
    const { q, k, a, g } = await laneBetween();
    const home = k.shardKeys(shardOf(g, SHARDS));
    const stale = fresh();
    await stale.submit(q, g, { i: 0 }, { tenant: a });
    await lanes.submit(q, g, { i: 1 });
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([0, 1]);
    expect((await lanes.lane(q, g)).tenant).toBeNull();
    // A maxDepth does not keep a tenant (nor a lane in lanes()); it goes home with the lane.
    await lanes.maxDepth(q, g, 3);
    // Both processes know the binding; the lane holds nothing, so naming no tenant makes it a lane of none, in its home.
    expect(await client.hget(home.boundVersions, g)).not.toBeNull();
    await lanes.submit(q, g, { i: 2 });
    expect(await client.hget(home.bound, g)).toBeNull();
    expect(await client.hget(home.boundVersions, g)).toBeNull();
    expect(await client.hget(k.shardKeys(1).unbound, g)).toBe(a);
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: null, pending: 1 });
    await stale.submit(q, g, { i: 3 });
    await stale.submitMany(q, [{ group: g, payload: { i: 4 } }]);
    expect(await client.zcard(home.lane(g))).toBe(3);
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(0);
    expect((await lanes.lane(q, g)).maxDepth).toBe(3);
    expect((await rejects(stale.submit(q, g, { i: 9 }))).code).toBe('LANE_FULL');
    expect(await client.hget(k.shardKeys(1).depth, g)).toBeNull();
    // It holds jobs under none now: naming a is refused, from either process, writing nothing.
    const before = await dirty(client);
    for (const service of [stale, lanes]) expect((await rejects(service.submit(q, g, 9, { tenant: a }))).argument).toBe('opts.tenant');
    expect(await dirty(client)).toBe(before);
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([2, 3, 4]);
    // Emptied, it takes a again when a submit names it, and a submit naming none then follows it there.
    await lanes.submit(q, g, { i: 5 }, { tenant: a });
    await stale.submit(q, g, { i: 6 });
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: a, pending: 2 });
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(2);
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([5, 6]);
    // The same through submitMany, from the process that still knows the binding.
    await stale.submitMany(q, [{ group: g, payload: { i: 7 } }, { group: 'other-lane', payload: { i: 8 } }]);
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: null, pending: 1 });
    expect(await client.zcard(home.lane(g))).toBe(1);
    expect(await client.hget(home.bound, g)).toBeNull();
  });

  it('a submitMany of many chunks sends a lane by a binding this process still knows, to a lane that went home under no tenant: it follows, refusing nothing', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant: a, near } = names(1);
    const g = near[0];
    const stale = fresh();
    await stale.submit(q, g, { i: 0 }, { tenant: a });
    await drain(lanes, q);
    // Another process lets it go: its home is a's shard, where it now holds a job under no tenant.
    await lanes.submit(q, g, { i: 1 });
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: null, pending: 1 });
    // The stale process's call: 210 jobs of other lanes of that shard first, so g's job is in a later chunk.
    const others = lanesPerShard(SHARDS, 210, 'filler-')[1];
    await stale.submitMany(q, [...others.map((o) => ({ group: o, payload: { i: 0 } })), { group: g, payload: { i: 2 } }]);
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: null, pending: 2 });
  });

  it('a setting given to a lane that let its tenant go holds: the next submit naming no tenant takes it home with the lane (a pause parks, a limit caps)', async () => {
    const { q, k, a, g } = await laneBetween();
    const home = k.shardKeys(shardOf(g, SHARDS));
    await lanes.submit(q, g, { i: 0 }, { tenant: a });
    await drain(lanes, q);
    await lanes.pause(q, g);
    await lanes.limit(q, g, 1);
    await fresh().submit(q, g, { i: 1 });
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: null, paused: true, limit: 1, pending: 1 });
    expect(await client.sismember(k.shardKeys(1).paused, g)).toBe(0);
    expect(await client.hget(k.shardKeys(1).limit, g)).toBeNull();
    for (let i = 0; i < 2 * SHARDS; i++) expect(await lanes.claim(q)).toBeNull();
    await lanes.resume(q, g);
    await lanes.submit(q, g, { i: 2 });
    const served: LaneJob[] = [];
    for (let i = 0; i < 4 * SHARDS; i++) {
      const job = await lanes.claim(q);
      if (job) served.push(job);
    }
    expect(served.map((j) => (j.payload as { i: number }).i)).toEqual([1]);
    expect(await client.zcard(home.lane(g))).toBe(1);
  });

  it('a submitMany refused for one lane writes nothing in any shard: no binding, no settings moved, no other shard\'s jobs', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const k = keysOf(q);
    const { tenant: a, away } = names(1);
    const b = names(2).tenant;
    const [held, set, other] = away;
    // `held` holds a job under a; `set` has a setting in its home and no job.
    await lanes.submit(q, held, { i: 0 }, { tenant: a });
    await lanes.weight(q, set, 2);
    const refused = async (items: Parameters<LanesService['submitMany']>[1], argument: string) => {
      for (const service of [lanes, fresh()]) {
        const before = await dirty(client);
        expect((await rejects(service.submitMany(q, items))).argument).toBe(argument);
        expect(await dirty(client)).toBe(before);
      }
    };
    // A lane bound and its setting moved for item 0, while item 1 is refused (its lane holds a job under a).
    await refused([{ group: set, payload: 1, opts: { tenant: b } }, { group: held, payload: 1, opts: { tenant: b } }], 'items[1].opts.tenant');
    // A plain item puts a job into a fresh lane under no tenant, so a later item naming one for it is refused, as unsharded.
    await refused([{ group: other, payload: 1 }, { group: other, payload: 2, opts: { tenant: b } }], 'items[1].opts.tenant');
    // Jobs of other lanes, bound for other shards, are not admitted when one item is refused.
    await refused([{ group: held, payload: 1, opts: { tenant: b } }, ...lanesPerShard(SHARDS, 1, 'plain-').flat().map((g) => ({ group: g, payload: 1 }))], 'items[0].opts.tenant');
    expect(await lanes.lane(q, set)).toMatchObject({ tenant: null, weight: 2 });
    expect((await lanes.stats(q)).totals.submitted).toBe(1);
  });

  it('a submitMany from a process whose binding is stale, refused for that lane, admits nothing in the other shards', async () => {
    const { q, a, g } = await laneBetween();
    const stale = fresh();
    await stale.submit(q, g, { i: 0 }, { tenant: a });
    await drain(lanes, q);
    // Another process makes it a lane of no tenant holding a job; the stale one still knows it bound to a.
    await lanes.submit(q, g, { i: 1 });
    const before = await dirty(client);
    const plain = lanesPerShard(SHARDS, 1, 'plain-').flat().map((x) => ({ group: x, payload: 1 }));
    expect((await rejects(stale.submitMany(q, [{ group: g, payload: 2, opts: { tenant: a } }, ...plain]))).argument).toBe('items[0].opts.tenant');
    expect(await dirty(client)).toBe(before);
    expect((await lanes.stats(q)).totals.submitted).toBe(2);
  });

  it('a submit naming the tenant while another process lets the lane go wins: the unbinding stops, and the lane stays the tenant\'s, in one shard', async () => {
    const { q, k, a, g } = await laneBetween();
    const home = k.shardKeys(shardOf(g, SHARDS));
    const releasing = fresh();
    await releasing.submit(q, g, { i: 0 }, { tenant: a });
    await drain(lanes, q);
    // Between the record in a's shard and the unbinding at home, a third process names a for the lane.
    const race = raceAfter(releasing, 'release', () => fresh().submit(q, g, { i: 1 }, { tenant: a }));
    await releasing.submit(q, g, { i: 2 });
    expect(race.ran).toBe(true);
    expect(await client.hget(home.bound, g)).toBe(a);
    expect(await client.hget(k.shardKeys(1).unbound, g)).toBeNull();
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: a, pending: 2 });
    expect(await client.zcard(k.shardKeys(1).lane(g))).toBe(2);
    expect(await client.zcard(home.lane(g))).toBe(0);
    // FIFO by mint time: the releasing process's job was minted first.
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([2, 1]);
  });

  it('a submit naming the tenant while another process moves the lane to another tenant wins: the move stops, refused, and the lane stays in one shard', async () => {
    const { q, k, a, b, g } = await laneBetween();
    const home = k.shardKeys(shardOf(g, SHARDS));
    const mover = fresh();
    await mover.submit(q, g, { i: 0 }, { tenant: a });
    await drain(lanes, q);
    await lanes.weight(q, g, 3);
    // Between the record in a's shard and the new binding at home, a third process names a for the lane.
    const race = raceAfter(mover, 'out', () => fresh().submit(q, g, { i: 1 }, { tenant: a }));
    expect((await rejects(mover.submit(q, g, { i: 2 }, { tenant: b }))).argument).toBe('opts.tenant');
    expect(race.ran).toBe(true);
    expect(await client.hget(home.bound, g)).toBe(a);
    // Its weight, carried to b's shard by the move, came back with it; nothing of it stays in b's shard.
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: a, pending: 1, weight: 3 });
    expect(await client.zcard(k.shardKeys(2).lane(g))).toBe(0);
    expect(await client.hget(k.shardKeys(2).weight, g)).toBeNull();
    expect(await client.exists(`${k.shardKeys(2).base}g:${g}:tenant`)).toBe(0);
    expect(await client.zscore(k.shardKeys(2).index, g)).toBeNull();
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([1]);
  });

  it('a lane moving to another tenant with its settings while a process that knew the old binding submits naming none: the settings go with it, the pause holds', async () => {
    const { q, a, b, g } = await laneBetween();
    const stale = fresh();
    // The limit is set while the lane holds a job, so it keeps a as its tenant once it is empty.
    await stale.submit(q, g, { i: 0 }, { tenant: a });
    await lanes.limit(q, g, 1);
    await drain(lanes, q);
    await lanes.pause(q, g);
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: a, paused: true, limit: 1, pending: 0 });
    const mover = fresh();
    // Right after the move records the lane gone from a, the stale process submits naming none; the move goes on meanwhile.
    let racing: Promise<string> | undefined;
    raceAfter(mover, 'out', async () => {
      racing = stale.submit(q, g, { i: 2 });
      await new Promise((r) => setTimeout(r, 5));
    });
    await mover.submit(q, g, { i: 1 }, { tenant: b });
    await racing;
    expect(await lanes.lane(q, g)).toMatchObject({ tenant: b, paused: true, limit: 1, pending: 2 });
    for (let i = 0; i < 2 * SHARDS; i++) expect(await lanes.claim(q)).toBeNull();
    await lanes.resume(q, g);
    expect((await drain(lanes, q)).map((j) => (j.payload as { i: number }).i)).toEqual([1, 2]);
  });

  it('shards() on the emptied queue drops the bindings: every process then lets the lane take another tenant', async () => {
    const q = queues.queue();
    await lanes.shards(q, SHARDS);
    const { tenant, away } = names(1);
    const other = names(2).tenant;
    const second = fresh();
    await second.submit(q, away[0], 1, { tenant });
    await drain(lanes, q);
    await lanes.shards(q, SHARDS);
    // NOTE: the second process reads the new map within a second, and forgets the old bindings.
    await new Promise((r) => setTimeout(r, 1_100));
    await second.stats(q);
    await new Promise((r) => setTimeout(r, 50));
    await second.submit(q, away[0], 2, { tenant: other });
    expect(await client.zcard(keysOf(q).shardKeys(shardOf(other, SHARDS)).lane(away[0]))).toBe(1);
    expect((await lanes.lane(q, away[0])).tenant).toBe(other);
    expect((await drain(lanes, q)).map((j) => j.group)).toEqual([away[0]]);
  });
});

describe('shards() carries lanes\' and tenants\' settings to their new shards', () => {
  const engine = engineFixture({ shardsOnOneServer: true });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('weights, ceilings, rates, pauses, maxDepth and order survive 1 -> 4 -> 3 -> 1 shards, each lane in one shard, and still hold', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const plain = ['w', 'l', 'r', 'p', 'd', 'o'].map((x) => `set-${x}`);
    await lanes.weight(q, 'set-w', 3);
    await lanes.limit(q, 'set-l', 1);
    await lanes.rate(q, 'set-r', { max: 2, perMs: 60_000 });
    await lanes.pause(q, 'set-p', { forMs: 600_000, reason: 'audit' });
    await lanes.maxDepth(q, 'set-d', 2);
    await lanes.ordered(q, 'set-o', true);
    await lanes.tenantWeight(q, 'acme', 4);
    await lanes.tenantLimit(q, 'acme', 2);
    await lanes.submit(q, 'acme-lane', 0, { tenant: 'acme' });
    await lanes.weight(q, 'acme-lane', 2);
    await drain(lanes, q);
    const settings = async (): Promise<unknown[]> => Promise.all([...plain, 'acme-lane'].map(async (g) => {
      const l = await lanes.lane(q, g);
      return [g, l.weight, l.limit, l.rate, l.paused, l.pauseReason, l.pausedUntil !== null, l.maxDepth, l.ordered];
    }));
    const want = await settings();
    const acme = await lanes.tenant(q, 'acme');
    for (const n of [4, 3, 1]) {
      await lanes.shards(q, n);
      expect(await settings()).toEqual(want);
      const t = await lanes.tenant(q, 'acme');
      expect([t.weight, t.limit]).toEqual([acme.weight, acme.limit]);
      // Each lane is known to one shard only (a lane with only a maxDepth is not in the lane index).
      const homes = await Promise.all([...plain, 'acme-lane'].map(async (g) => {
        const held = await Promise.all(Array.from({ length: n }, async (_, i) => {
          const s = k.shardKeys(i);
          return (await client.zscore(s.index, g)) !== null || (await client.hexists(s.depth, g)) === 1;
        }));
        return held.filter(Boolean).length;
      }));
      expect(homes).toEqual(Array(plain.length + 1).fill(1));
      const tenantHashes = await Promise.all(Array.from({ length: n }, (_, i) => client.hget(k.shardKeys(i).tenantInfo('acme'), 'weight')));
      expect(tenantHashes.filter((w) => w !== null)).toEqual(['4']);
      // The settings still hold: the ceiling of 1, the pause, the depth, the tenant's lane bound to it.
      for (let i = 0; i < 3; i++) await lanes.submit(q, 'set-l', i);
      await lanes.submit(q, 'set-p', 0);
      await lanes.submitMany(q, [{ group: 'set-d', payload: 0 }, { group: 'set-d', payload: 1 }]);
      expect((await rejects(lanes.submit(q, 'set-d', 2))).code).toBe('LANE_FULL');
      await lanesOn(client, { shardsOnOneServer: true }).submit(q, 'acme-lane', 1);
      expect((await lanes.lane(q, 'acme-lane')).tenant).toBe('acme');
      const { jobs } = await lanes.claimMany(q, 10);
      expect(jobs.map((j) => j.group).sort()).toEqual(['acme-lane', 'set-d', 'set-d', 'set-l']);
      await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
      await lanes.drain(q);
    }
  });
});
