import { Injectable } from '@nestjs/common';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { LanesService } from '../../lib/lanes.service';
import { closeRedisClient, createRedisClient } from '../../lib/redis/redis-connection';
import { LaneConsumer } from '../../lib/decorators';
import type { LaneJob } from '../../lib/interfaces';
import { testQueue } from '../support/lanes';
import { bootApp } from '../support/nest';
import { Test } from '@nestjs/testing';
import { EchoMqModule, OnQueueEvent, QueueEvent, QueueEventsListener } from '../../lib';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { scriptCalls } from '../support/script-path';
import { shardOf } from '../../lib/shards/shard-hash';
import { TestCluster } from './support/cluster';
import { FaultConsumer } from './support/consumer';
import { report, waitFor } from './support/wait';

/** Lane names `count` of which share one shard of a queue of `shards` shards (any names when unsharded). */
function sameShard(shards: number, count: number, prefix: string): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (shardOf(`${prefix}${i}`, shards) === shardOf(`${prefix}0`, shards)) out.push(`${prefix}${i}`);
  return out;
}

/**
 * The contract on a local three-master Redis Cluster, on queues whose slots live on different
 * masters: each queue unsharded, then each spread over six shards (shards(q, 6)).
 */
describe.each([['unsharded queues', 1], ['queues of shards(q, 6)', 6]])('faults: Redis Cluster (3 masters), %s', (_label, SHARDS) => {
  let cluster: TestCluster;
  let client: Cluster;
  let lanes: LanesService;
  const warnings: string[] = [];
  const opened: Cluster[] = [];
  /** queue -> the port of the master that holds it. */
  const queues = new Map<string, number>();

  /** The lanes of a queue with pending or active jobs (a lane with only a setting is listed too). */
  const busyLanes = async (q: string) => (await lanes.lanes(q)).filter((l) => l.pending > 0 || l.active > 0);

  const connect = async (name: string): Promise<Cluster> => {
    const c = createRedisClient({ cluster: [{ host: '127.0.0.1', port: cluster.nodes[0].port }] }, name) as Cluster;
    opened.push(c);
    await waitFor(`cluster client ${name} ready`, () => c.status === 'ready');
    return c;
  };

  beforeAll(async () => {
    cluster = await TestCluster.start();
    client = await connect('test');
    const logger = { log: (m: unknown) => void warnings.push(`log: ${m}`), warn: (m: unknown) => void warnings.push(`warn: ${m}`), error: () => undefined };
    lanes = new LanesService(client, resolveEchoMqOptions({ logger }));
    await lanes.onModuleInit();
    const owners = new Set<number>();
    while (owners.size < 3) {
      const q = testQueue();
      const owner = await cluster.ownerOf(calculateSlot(lanes.keysOf(q).ring));
      if (!owners.has(owner)) {
        owners.add(owner);
        queues.set(q, owner);
      }
    }
    for (const q of queues.keys()) await lanes.shards(q, SHARDS);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((c) => closeRedisClient(c)));
    await cluster?.stop();
  });

  it('onModuleInit reads the policy from a master and has nothing to warn about', () => {
    expect(warnings).toEqual([]);
  });

  it('the queues live on three different masters, each queue (each shard) in one slot', async () => {
    expect(new Set(queues.values()).size).toBe(3);
    for (const q of queues.keys()) {
      for (let i = 0; i < SHARDS; i++) {
        const k = lanes.keysOf(q).shardKeys(i);
        const slots = new Set([k.ring, k.ringSet, k.active, k.gactive, k.lane('a'), k.job('JOB00000000000'), k.wake].map((key) => calculateSlot(key)));
        expect(slots.size).toBe(1);
      }
      expect(await lanes.shardCount(q)).toBe(SHARDS);
    }
  });

  it('submit, submitMany, claim rotation, wclaim and wclaimMany weights, complete, lanes() on every queue', async () => {
    // NOTE: two lanes of one shard, whose rotation is exact (across shards it is the visits' order).
    const [a, b] = sameShard(SHARDS, 2, 'r');
    for (const q of queues.keys()) {
      for (let i = 0; i < 3; i++) await lanes.submit(q, a, { i });
      await lanes.submitMany(q, [0, 1, 2].map((i) => ({ group: b, payload: { i } })));
      expect((await lanes.lanes(q)).map((l) => [l.group, l.pending])).toEqual([[a, 3], [b, 3]]);
      const order: string[] = [];
      for (let job = await lanes.claim(q); job; job = await lanes.claim(q)) {
        order.push(`${job.group === a ? 'a' : 'b'}${(job.payload as { i: number }).i}`);
        expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
      }
      expect(order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);

      await lanes.weight(q, 'w', 3);
      await lanes.submitMany(q, Array.from({ length: 7 }, (_, i) => ({ group: 'w', payload: { i } })));
      const turn = await lanes.wclaim(q);
      expect(turn.map((j) => (j.payload as { i: number }).i)).toEqual([0, 1, 2]);
      for (const j of turn) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
      const { turns } = await lanes.wclaimMany(q, 10);
      expect(turns.map((t) => t.map((j) => (j.payload as { i: number }).i))).toEqual([[3, 4, 5], [6]]);
      for (const j of turns.flat()) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
      expect(await lanes.lanes(q)).toEqual([{ group: 'w', pending: 0, active: 0, weight: 3, limit: null, paused: false, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: null }]);
      expect(await lanes.stats(q)).toMatchObject({ totals: { submitted: 13, completed: 13, retried: 0, dead: 0 }, pending: 0, lanes: 1, paused: false, shards: SHARDS });
    }
  });

  it('limit, pause/resume and reap on every queue', async () => {
    for (const q of queues.keys()) {
      await lanes.limit(q, 'L', 1);
      await lanes.submitMany(q, [{ group: 'L', payload: 1 }, { group: 'L', payload: 2 }]);
      const held = (await lanes.claim(q))!;
      expect(await lanes.lane(q, 'L')).toMatchObject({ pending: 1, active: 1, limit: 1, inRing: false });
      expect(await lanes.claim(q)).toBeNull();
      expect(await lanes.complete(q, held.id, held.attempt)).toBe(true);
      expect(await lanes.lane(q, 'L')).toMatchObject({ pending: 1, active: 0, inRing: true });
      await lanes.limit(q, 'L', null);

      await lanes.pause(q, 'L');
      expect(await lanes.claim(q)).toBeNull();
      expect(await lanes.lane(q, 'L')).toMatchObject({ pending: 1, paused: true, inRing: false });
      await lanes.resume(q, 'L');
      const short = (await lanes.claim(q, { leaseMs: 50 }))!;
      expect(short.attempt).toBe(1);
      await waitFor('the short lease to be reaped', async () => (await lanes.reap(q)) === 1);
      const again = (await lanes.claim(q))!;
      expect(again).toMatchObject({ id: short.id, attempt: 2 });
      expect(await lanes.complete(q, short.id, short.attempt)).toBe(false);
      expect(await lanes.complete(q, again.id, again.attempt)).toBe(true);
      expect(await busyLanes(q)).toEqual([]);
    }
  });

  it('a BRPOP blocked on emq:{q}:wake (on a sharded queue, the lane\'s shard\'s) is woken by a submit, on every queue', async () => {
    const blocker = await connect('blocker');
    for (const [q, queuePort] of queues) {
      const k = lanes.keysOf(q).shardKeys(shardOf('wake-me', SHARDS));
      const port = await cluster.ownerOf(calculateSlot(k.wake));
      expect(SHARDS > 1 || port === queuePort).toBe(true);
      await client.del(k.wake);
      let wokenAt = 0;
      const wait = blocker.brpop(k.wake, 10).then((r) => {
        wokenAt = Date.now();
        return r;
      });
      const node = cluster.nodes.find((n) => n.port === port)!.client();
      try {
        await waitFor('the BRPOP to block on the owning master', async () => /blocked_clients:[1-9]/.test(await node.info('clients')));
      } finally {
        node.disconnect();
      }
      expect(wokenAt).toBe(0);
      const submittedAt = Date.now();
      await lanes.submit(q, 'wake-me', { n: 1 });
      expect(await wait).toEqual([k.wake, '1']);
      report(`cluster: BRPOP on ${k.wake} (master :${port}) woken ${wokenAt - submittedAt} ms after the submit`);
      const job = (await lanes.claim(q))!;
      expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
    }
  });

  it('a load over the three queues drains, each consumer on its own cluster connections', async () => {
    const perQueue = 300;
    const served = new Map<string, number>();
    const consumers: FaultConsumer[] = [];
    for (const q of queues.keys()) {
      await lanes.submitMany(q, Array.from({ length: perQueue }, (_, i) => ({ group: `t${i % 5}`, payload: { i } })));
      consumers.push(new FaultConsumer({
        lanes: new LanesService(await connect(`consumer-${q}`), resolveEchoMqOptions({ logger: { log: () => 0, warn: () => 0, error: () => 0 } })),
        blocking: await connect(`blocking-${q}`),
        queue: q,
        handle: (job) => void served.set(`${q}/${job.id}`, (served.get(`${q}/${job.id}`) ?? 0) + 1),
      }).start());
    }
    await waitFor('every job served', () => served.size === perQueue * queues.size);
    await Promise.all(consumers.map((c) => c.stop()));
    for (const q of queues.keys()) expect(await busyLanes(q)).toEqual([]);
    const errors = consumers.reduce((n, c) => n + c.stats.errors, 0);
    report(`cluster: ${served.size} jobs over 3 queues on 3 masters served, ${[...served.values()].filter((n) => n > 1).length} twice, consumer errors ${errors}`);
    expect([...served.values()].every((n) => n === 1)).toBe(true);
    expect(errors).toBe(0);
  });

  it('waitFor resolves on every queue (PUBLISH from the job\'s master reaches the subscriber), and scanLanes/topLanes/stats read each queue', async () => {
    for (const q of queues.keys()) {
      const ids = await lanes.submitMany(q, Array.from({ length: 20 }, (_, i) => ({ group: `w${i % 4}`, payload: i })));
      const waits = ids.map((id) => lanes.waitFor(q, id, { timeoutMs: 10_000 }));
      for (;;) {
        const { jobs } = await lanes.claimMany(q, 10);
        if (jobs.length === 0) break;
        await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt, result: j.payload })));
      }
      const infos = await Promise.all(waits);
      infos.forEach((info, i) => expect(info).toMatchObject({ id: ids[i], state: 'completed', result: i }));
      const before = (await lanes.stats(q)).lanes;
      await lanes.weight(q, 'kept', 2);
      const scanned: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await lanes.scanLanes(q, { cursor });
        scanned.push(...page.lanes.map((l) => l.group));
        cursor = page.cursor ?? undefined;
      } while (cursor !== undefined);
      expect(scanned).toContain('kept');
      expect((await lanes.topLanes(q, 5)).map((l) => l.group)).toContain('kept');
      expect(await lanes.stats(q)).toMatchObject({ pending: 0, lanes: before + 1 });
      await lanes.weight(q, 'kept', 1);
    }
  });

  it('an app given an existing Cluster client as its connection duplicates it, serves on every master, and leaves it open', async () => {
    const names = [...queues.keys()];
    const served: string[] = [];
    const consumers = names.map((q) => {
      @LaneConsumer(q)
      @Injectable()
      class ClusterWorker {
        handle(job: LaneJob): void {
          served.push(`${q}/${job.id}`);
        }
      }
      return ClusterWorker;
    });
    const { app } = await bootApp('', consumers, { connection: client });
    try {
      const service = app.get(LanesService);
      const ids = await Promise.all(names.map((q) => service.submit(q, 'mine', { q })));
      await Promise.all(names.map((q, i) => service.waitFor(q, ids[i], { timeoutMs: 20_000 })));
      expect(served.sort()).toEqual(names.map((q, i) => `${q}/${ids[i]}`).sort());
    } finally {
      await app.close();
    }
    expect(client.status).toBe('ready');
    expect(await client.set(`emq:{${names[0]}}:still-mine`, '1', 'PX', 1_000)).toBe('OK');
  });

  it('queue events reach a listener app from every master; cancel, drain, clean and obliterate work on each queue', async () => {
    const heard: QueueEvent[] = [];
    const listeners = [...queues.keys()].map((q) => {
      @QueueEventsListener(q)
      @Injectable()
      class Listener {
        @OnQueueEvent('submitted') submitted(e: QueueEvent): void { heard.push(e); }
        @OnQueueEvent('completed') completed(e: QueueEvent): void { heard.push(e); }
        @OnQueueEvent('cancelled') cancelled(e: QueueEvent): void { heard.push(e); }
      }
      return Listener;
    });
    const logger = { log: () => undefined, warn: () => undefined, error: () => undefined };
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: { cluster: [{ host: '127.0.0.1', port: cluster.nodes[0].port }] }, logger })],
      providers: listeners,
    }).compile();
    const app = mod.createNestApplication({ logger });
    await app.init();
    try {
      for (const q of queues.keys()) {
        const [a, b] = await lanes.submitMany(q, [{ group: 'e', payload: 1 }, { group: 'e', payload: 2 }]);
        const job = (await lanes.claim(q))!;
        expect(job.id).toBe(a);
        await lanes.complete(q, a, job.attempt);
        expect(await lanes.cancel(q, b)).toBe(true);
        await waitFor(`the events of ${q}`, () => ['submitted', 'completed', 'cancelled'].every((ev) => heard.some((e) => e.queue === q && e.event === ev)));
        await lanes.submitMany(q, [{ group: 'd', payload: 1 }, { group: 'd', payload: 2, opts: { delayMs: 60_000 } }]);
        expect(await lanes.drain(q)).toBe(2);
        expect(await lanes.clean(q, 'dead')).toBe(0);
        await lanes.obliterate(q);
        const left = await Promise.all(cluster.nodes.map(async (n) => {
          const c = createRedisClient({ host: '127.0.0.1', port: n.port }, 'keys') as unknown as { keys(p: string): Promise<string[]>; quit(): Promise<unknown> };
          try {
            const k = lanes.keysOf(q);
            return [...await c.keys(k.pattern()), ...await c.keys(k.pattern().replace(/\}:\*$/, '{*'))];
          } finally {
            await c.quit();
          }
        }));
        expect(left.flat()).toEqual([]);
      }
    } finally {
      await app.close();
    }
  }, 60_000);

  it('the function library lives per master: each loads it on its first call there, and again after a FUNCTION FLUSH (as on a new master)', async () => {
    const nodeClient = (port: number) => cluster.nodes.find((n) => n.port === port)!.client();
    const libraries = async (port: number) => {
      const c = nodeClient(port);
      try {
        return ((await c.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'echomq_*')) as unknown[]).length;
      } finally {
        c.disconnect();
      }
    };
    expect(await new LaneScripts(client).path()).toBe('fcall');
    for (const port of new Set(queues.values())) expect(await libraries(port)).toBeGreaterThan(0);
    const roundTrip = async (q: string) => {
      await lanes.submit(q, 'f', 1);
      const job = (await lanes.claim(q))!;
      expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
      expect(await lanes.dead(q)).toEqual([]);
    };
    const [[first, firstPort]] = queues;
    const flushed = nodeClient(firstPort);
    try {
      await flushed.call('FUNCTION', 'FLUSH');
      expect(await libraries(firstPort)).toBe(0);
      for (const q of queues.keys()) await roundTrip(q);
      expect(await libraries(firstPort)).toBeGreaterThan(0);
      await Promise.all(cluster.nodes.map(async (n) => {
        const c = n.client();
        try {
          await c.call('FUNCTION', 'FLUSH');
        } finally {
          c.disconnect();
        }
      }));
      await roundTrip(first);
      for (const q of queues.keys()) await roundTrip(q);
      // Every script ran as a function: no master was sent a script by EVALSHA or EVAL.
      for (const n of cluster.nodes) {
        const c = n.client();
        try {
          expect(await scriptCalls(c)).toMatchObject({ evalsha: 0, eval: 0 });
        } finally {
          c.disconnect();
        }
      }
    } finally {
      flushed.disconnect();
    }
  });
});
