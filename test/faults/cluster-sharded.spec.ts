import { Injectable } from '@nestjs/common';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { LanesService } from '../../lib/lanes.service';
import { LaneConsumer } from '../../lib/decorators';
import type { LaneJob } from '../../lib/interfaces';
import { closeRedisClient, createRedisClient } from '../../lib/redis/redis-connection';
import { shardOf } from '../../lib/shards/shard-hash';
import { lanesPerShard, testQueue } from '../support/lanes';
import { bootApp } from '../support/nest';
import { TestCluster } from './support/cluster';
import { pause, report, waitFor } from './support/wait';

const SHARDS = 6;
const APP_QUEUE = `sharded-app-${Date.now()}`;
const handled: { group: string; at: number }[] = [];

@LaneConsumer(APP_QUEUE, { concurrency: 4 })
@Injectable()
class ShardedAppWorker {
  async handle(job: LaneJob): Promise<void> {
    handled.push({ group: job.group, at: Date.now() });
  }
}


/** A queue spread over SHARDS shards on a local three-master Cluster, every master holding some of them. */
describe('faults: a sharded queue on a Redis Cluster (3 masters, shards(q, 6))', () => {
  let cluster: TestCluster;
  let lanes: LanesService;
  const opened: Cluster[] = [];
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

  const connect = async (name: string): Promise<Cluster> => {
    const c = createRedisClient({ cluster: [{ host: '127.0.0.1', port: cluster.nodes[0].port }] }, name) as Cluster;
    opened.push(c);
    await waitFor(`cluster client ${name} ready`, () => c.status === 'ready');
    return c;
  };
  /** A new queue of SHARDS shards, and the owner (port) of each shard: shards() spreads them over the three masters. */
  const spreadQueue = async (): Promise<{ q: string; owners: number[] }> => {
    const q = testQueue();
    await lanes.shards(q, SHARDS);
    const k = lanes.keysOf(q);
    const owners = await Promise.all(Array.from({ length: SHARDS }, (_, i) => cluster.ownerOf(calculateSlot(k.shardKeys(i).ring))));
    return { q, owners };
  };
  const service = async (name: string): Promise<LanesService> => {
    const s = new LanesService(await connect(name), resolveEchoMqOptions({ logger: quiet, callTimeoutMs: 1_500 }));
    await s.onModuleInit();
    return s;
  };

  beforeAll(async () => {
    // NOTE: without full coverage a master's death leaves the others serving their slots.
    cluster = await TestCluster.start(['--cluster-require-full-coverage', 'no']);
    lanes = await service('test');
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((c) => closeRedisClient(c)));
    await cluster?.stop();
  });

  it('each shard lives in its own slot on its master, and a submitted lane\'s keys are in its shard\'s slot', async () => {
    const { q, owners } = await spreadQueue();
    await lanes.shards(q, SHARDS);
    const groups = lanesPerShard(SHARDS, 4, 'g').flat();
    await lanes.submitMany(q, groups.map((group) => ({ group, payload: 1 })));
    const k = lanes.keysOf(q);
    for (let i = 0; i < SHARDS; i++) {
      const slot = calculateSlot(k.shardKeys(i).ring);
      const node = cluster.nodes.find((n) => n.port === owners[i])!.client();
      try {
        expect(Number(await node.cluster('COUNTKEYSINSLOT', slot))).toBeGreaterThanOrEqual(4);
      } finally {
        node.disconnect();
      }
    }
    // NOTE: spread over the masters in turn, whatever slots the plain tags would have hashed to.
    const placed = new Map<number, number>();
    for (const owner of owners) placed.set(owner, (placed.get(owner) ?? 0) + 1);
    expect([...placed.values()]).toEqual([2, 2, 2]);
    report(`cluster sharded: shards on masters ${owners.join(', ')}; tags ${JSON.stringify(await lanes.keysOf(q).shardKeys(5).tag)}…`);
    await lanes.drain(q);
  });

  it('two processes drain 1,200 jobs over 60 lanes: each job once, every master serving, by-id acks from the other process', async () => {
    const { q, owners } = await spreadQueue();
    await lanes.shards(q, SHARDS);
    const ids = await lanes.submitMany(q, Array.from({ length: 1_200 }, (_, i) => ({ group: `l${i % 60}`, payload: { i } })));
    const served = new Map<string, number>();
    const perMaster = new Map<number, number>();
    const claimers = await Promise.all([service('a'), service('b')]);
    const acker = await service('acker');
    await Promise.all(claimers.map(async (c) => {
      for (;;) {
        const { jobs } = await c.claimMany(q, 16);
        if (jobs.length === 0) return;
        for (const j of jobs) {
          served.set(j.id, (served.get(j.id) ?? 0) + 1);
          const owner = owners[shardOf(j.group, SHARDS)];
          perMaster.set(owner, (perMaster.get(owner) ?? 0) + 1);
        }
        // NOTE: a process that did not claim them acks them: it finds each job's shard by id.
        expect(await acker.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })))).toEqual(jobs.map(() => true));
      }
    }));
    expect([...served.keys()].sort()).toEqual([...ids].sort());
    expect([...served.values()].every((n) => n === 1)).toBe(true);
    expect(perMaster.size).toBe(3);
    const stats = await lanes.stats(q);
    expect([stats.shards, stats.totals.completed, stats.pending, stats.active]).toEqual([SHARDS, 1_200, 0, 0]);
    report(`cluster sharded: 1,200 jobs, served per master ${[...perMaster.values()].join(' / ')}`);
  });

  it('lane ceilings hold in every shard under three concurrent claimers', async () => {
    const { q } = await spreadQueue();
    await lanes.shards(q, SHARDS);
    const limited = lanesPerShard(SHARDS, 1, 'cap').flat();
    for (const g of limited) await lanes.limit(q, g, 1);
    await lanes.submitMany(q, limited.flatMap((group) => Array.from({ length: 6 }, (_, i) => ({ group, payload: i }))));
    const held = new Map<string, number>();
    let most = 0;
    let done = 0;
    const claimers = await Promise.all([service('c1'), service('c2'), service('c3')]);
    await Promise.all(claimers.map(async (c) => {
      while (done < limited.length * 6) {
        const { jobs } = await c.claimMany(q, 4);
        if (jobs.length === 0) {
          await pause(5);
          continue;
        }
        for (const j of jobs) {
          held.set(j.group, (held.get(j.group) ?? 0) + 1);
          most = Math.max(most, held.get(j.group)!);
        }
        await pause(3);
        for (const j of jobs) held.set(j.group, held.get(j.group)! - 1);
        await c.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
        done += jobs.length;
      }
    }));
    expect(most).toBe(1);
    expect(done).toBe(limited.length * 6);
  });

  it('tenants: each tenant\'s lanes sit in its shard\'s slot, a submit naming none from another process finds them, a tenant ceiling holds under three claimers', async () => {
    const { q, owners } = await spreadQueue();
    const tenants = lanesPerShard(SHARDS, 1, 'acct').flat();
    const k = lanes.keysOf(q);
    await lanes.submitMany(q, tenants.flatMap((tenant) => Array.from({ length: 4 }, (_, l) => ({ group: `${tenant}-l${l}`, payload: 0, opts: { tenant } }))));
    const other = await service('tenant-other');
    await other.submitMany(q, tenants.flatMap((tenant) => Array.from({ length: 4 }, (_, l) => Array.from({ length: 5 }, (_, i) => ({ group: `${tenant}-l${l}`, payload: i + 1 }))).flat()));
    for (const [t, tenant] of tenants.entries()) {
      const slot = calculateSlot(k.shardKeys(t).ring);
      for (let l = 0; l < 4; l++) expect(calculateSlot(k.shardKeys(t).lane(`${tenant}-l${l}`))).toBe(slot);
      expect((await other.tenant(q, tenant)).pending).toBe(24);
    }
    await lanes.tenantLimit(q, tenants[0], 2);
    const active = new Map<string, number>();
    let most = 0;
    let done = 0;
    const claimers = await Promise.all([service('t1'), service('t2'), service('t3')]);
    await Promise.all(claimers.map(async (c) => {
      while (done < tenants.length * 24) {
        const { jobs } = await c.claimMany(q, 6);
        if (jobs.length === 0) {
          await pause(5);
          continue;
        }
        const mine = jobs.filter((j) => j.group.startsWith(`${tenants[0]}-`)).length;
        active.set(tenants[0], (active.get(tenants[0]) ?? 0) + mine);
        most = Math.max(most, active.get(tenants[0])!);
        await pause(3);
        active.set(tenants[0], active.get(tenants[0])! - mine);
        await c.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
        done += jobs.length;
      }
    }));
    expect(most).toBe(2);
    expect(done).toBe(tenants.length * 24);
    report(`cluster sharded: ${tenants.length} tenants on masters ${tenants.map((_, t) => owners[t]).join(', ')}; tenant ceiling 2 held (most active ${most})`);
  });

  it('starvation drill over six shards on three masters: a light lane\'s j-th job within (j + δ) × lanes claims', async () => {
    const { q } = await spreadQueue();
    await lanes.shards(q, SHARDS);
    const light = Array.from({ length: 90 }, (_, i) => `light${i}`);
    await lanes.submitMany(q, [
      ...Array.from({ length: 900 }, (_, i) => ({ group: 'flood', payload: i })),
      ...light.flatMap((group) => [0, 1, 2].map((i) => ({ group, payload: i }))),
    ]);
    const n = light.length + 1;
    const seen = new Map<string, number>();
    let rank = 0;
    let delta = -Infinity;
    for (;;) {
      const job = await lanes.claim(q);
      if (!job) break;
      rank++;
      await lanes.complete(q, job.id, job.attempt);
      if (job.group === 'flood') continue;
      const j = (seen.get(job.group) ?? 0) + 1;
      seen.set(job.group, j);
      delta = Math.max(delta, rank / n - j);
    }
    expect(rank).toBe(900 + light.length * 3);
    report(`cluster sharded: starvation drill, ${SHARDS} shards on 3 masters, ${n} lanes, one claimer: δ = ${delta.toFixed(3)} cycles`);
    expect(delta).toBeLessThanOrEqual(1);
  });

  it('a consumer app on the Cluster blocks on every shard and wakes at once for a submit into any shard', async () => {
    const seed = { host: '127.0.0.1', port: cluster.nodes[0].port };
    const { app } = await bootApp('', [ShardedAppWorker], { connection: { cluster: [seed] } });
    try {
      const appLanes = app.get(LanesService);
      await appLanes.shards(APP_QUEUE, SHARDS);
      await pause(300);
      for (const [shard, [group]] of lanesPerShard(SHARDS, 1, 'wake').entries()) {
        const before = handled.length;
        const at = Date.now();
        await lanes.submit(APP_QUEUE, group, { shard });
        await waitFor(`the job of shard ${shard}`, () => handled.length > before, { timeoutMs: 3_000, intervalMs: 5 });
        expect(handled[before].group).toBe(group);
        expect(handled[before].at - at).toBeLessThan(1_000);
        await pause(100);
      }
    } finally {
      await app.close();
    }
  });

  it('a shard whose master is down does not stop the other shards from being served', async () => {
    const { q, owners } = await spreadQueue();
    await lanes.shards(q, SHARDS);
    const byShard = lanesPerShard(SHARDS, 2, 'm');
    await lanes.submitMany(q, byShard.flat().flatMap((group) => Array.from({ length: 5 }, (_, i) => ({ group, payload: i }))));
    // NOTE: the master of a shard other than shard 0, so the count stays readable (it is cached anyway).
    const victim = owners.find((o, i) => i > 0 && o !== owners[0])!;
    const alive = byShard.flatMap((groups, i) => (owners[i] === victim ? [] : groups));
    await cluster.nodes.find((node) => node.port === victim)!.kill('SIGKILL');
    const got = new Map<string, number>();
    const until = Date.now() + 20_000;
    while (Date.now() < until && [...got.values()].reduce((a, b) => a + b, 0) < alive.length * 5) {
      const { jobs } = await lanes.claimMany(q, 20).catch(() => ({ jobs: [] as LaneJob[] }));
      for (const j of jobs) got.set(j.group, (got.get(j.group) ?? 0) + 1);
      if (jobs.length > 0) await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
    }
    report(`cluster sharded: master ${victim} down (${owners.filter((o) => o === victim).length} of ${SHARDS} shards): served ${[...got.values()].reduce((a, b) => a + b, 0)} of the ${alive.length * 5} jobs of the other shards`);
    expect(Object.fromEntries(alive.map((g) => [g, got.get(g)]))).toEqual(Object.fromEntries(alive.map((g) => [g, 5])));
  }, 60_000);
});
