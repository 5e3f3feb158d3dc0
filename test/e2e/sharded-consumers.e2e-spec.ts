import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService, OnQueueEvent, QueueEvent, QueueEventsListener } from '../../lib';
import { shardOf } from '../../lib/shards/shard-hash';
import { lanesOn } from '../support/lanes';
import { bootApp, nestFixture, until } from '../support/nest';

const QUEUE = 'e2e-sharded';
const handled: { id: string; group: string; at: number }[] = [];

@LaneConsumer(QUEUE, { concurrency: 4 })
@Injectable()
class ShardedWorker {
  async handle(job: LaneJob): Promise<void> {
    handled.push({ id: job.id, group: job.group, at: Date.now() });
  }
}

const heard: QueueEvent[] = [];

/** Hears the completions of the sharded queue, in an app of its own (as another process would). */
@QueueEventsListener(QUEUE)
@Injectable()
class ShardedAuditor {
  @OnQueueEvent('completed') completed(e: QueueEvent): void { heard.push(e); }
}

/** A second handler of the same queue: its loop shares the process's waits on the shards. */
@LaneConsumer(QUEUE, { concurrency: 1 })
@Injectable()
class ShardedSecondWorker {
  async handle(job: LaneJob): Promise<void> {
    handled.push({ id: job.id, group: job.group, at: Date.now() });
  }
}

const REARM_QUEUE = 'e2e-sharded-rearm';
const rearmHandled: { group: string; at: number }[] = [];

@LaneConsumer(REARM_QUEUE, { concurrency: 1 })
@Injectable()
class RearmWorker {
  async handle(job: LaneJob): Promise<void> {
    rearmHandled.push({ group: job.group, at: Date.now() });
  }
}

const laterHeard: string[] = [];

/** Hears the submits of a queue sharded after it booted. */
@QueueEventsListener('e2e-sharded-later')
@Injectable()
class LaterAuditor {
  @OnQueueEvent('submitted') submitted(e: QueueEvent): void { laterHeard.push(e.jobId); }
}

/** The command connection of a LanesService (to read keys directly). */
const producerOf = (lanes: LanesService): { exists(key: string): Promise<number> } =>
  (lanes as unknown as { ctx: { client: { exists(key: string): Promise<number> } } }).ctx.client;

async function blockedClients(lanes: LanesService): Promise<number> {
  const info = await (lanes as unknown as { ctx: { client: { info(s: string): Promise<string> } } }).ctx.client.info('clients');
  return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
}

describe('a consumer of a sharded queue', () => {
  const fixture = nestFixture();

  it('blocks on every shard\'s wake list when idle, wakes at once for a submit into any shard, and serves every job once', async () => {
    const { app } = await bootApp(fixture.server.url, [ShardedWorker, ShardedSecondWorker], { shardsOnOneServer: true });
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await lanes.shards(QUEUE, 4);
    // NOTE: idleBlockMs is 5 s (the default): a wake that missed a shard would show as a wait of seconds.
    // NOTE: each loop's wait from before the queue was sharded (on shard 0 only) ends within
    // idleBlockMs; then two loops on the queue, one process, share one wait per shard: 4, not 8.
    await until(async () => (await blockedClients(lanes)) === 4, 15_000, 'one blocked wait per shard');
    await new Promise((r) => setTimeout(r, 300));
    expect(await blockedClients(lanes)).toBe(4);
    const producerClient = fixture.server.client();
    const producer = lanesOn(producerClient, { shardsOnOneServer: true });
    for (let shard = 0; shard < 4; shard++) {
      let i = 0;
      while (shardOf(`wake-${shard}-${i}`, 4) !== shard) i++;
      const group = `wake-${shard}-${i}`;
      const before = handled.length;
      const at = Date.now();
      await producer.submit(QUEUE, group, { shard });
      await until(() => handled.length > before, 3_000, `the job of shard ${shard}`);
      expect(handled[before].group).toBe(group);
      expect(handled[before].at - at).toBeLessThan(1_000);
      await until(async () => (await blockedClients(lanes)) >= 4, 10_000, 'the loop to idle again');
    }
    const ids = await producer.submitMany(QUEUE, Array.from({ length: 400 }, (_, i) => ({ group: `load-${i % 40}`, payload: i })));
    await until(() => handled.length >= 404, 20_000, 'the load');
    const load = handled.slice(4);
    expect(load.map((h) => h.id).sort()).toEqual([...ids].sort());
    // NOTE: acks leave in batches after the handlers return.
    await until(async () => (await lanes.stats(QUEUE)).totals.completed === 404, 5_000, 'every completion');
    await producerClient.quit();
  });

  it('watches every shard to the end of a wait, though the shards\' waits kept from the one before time out first', async () => {
    const { app } = await bootApp(fixture.server.url, [RearmWorker], { shardsOnOneServer: true, idleBlockMs: 4_000 });
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await lanes.shards(REARM_QUEUE, 4);
    await until(async () => (await blockedClients(lanes)) === 4, 15_000, 'one blocked wait per shard');
    const waitBegan = Date.now();
    const groupOf = (shard: number): string => {
      let i = 0;
      while (shardOf(`rearm-${shard}-${i}`, 4) !== shard) i++;
      return `rearm-${shard}-${i}`;
    };
    const producerClient = fixture.server.client();
    const producer = lanesOn(producerClient, { shardsOnOneServer: true });
    try {
      // Halfway through the wait, a submit into shard 1: the next wait sends shard 1's BRPOP anew and
      // keeps the other three, which time out 2 s into it.
      await new Promise((r) => setTimeout(r, waitBegan + 2_000 - Date.now()));
      await producer.submit(REARM_QUEUE, groupOf(1), {});
      await until(() => rearmHandled.length === 1, 3_000, 'the job of shard 1');
      // After those three timed out, a submit into shard 2.
      await new Promise((r) => setTimeout(r, waitBegan + 4_300 - Date.now()));
      const at = Date.now();
      await producer.submit(REARM_QUEUE, groupOf(2), {});
      await until(() => rearmHandled.length === 2, 5_000, 'the job of shard 2');
      expect(rearmHandled[1].group).toBe(groupOf(2));
      expect(rearmHandled[1].at - at).toBeLessThan(1_000);
    } finally {
      await producerClient.quit();
    }
  });

  it('a queue-event listener hears the jobs of every shard, and follows a queue sharded while it runs', async () => {
    const { app } = await bootApp(fixture.server.url, [ShardedWorker], { shardsOnOneServer: true });
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await lanes.shards(QUEUE, 4);
    const { app: listener } = await bootApp(fixture.server.url, [ShardedAuditor], { shardsOnOneServer: true });
    fixture.apps.push(listener);
    const ids = await lanes.submitMany(QUEUE, Array.from({ length: 40 }, (_, i) => ({ group: `ev-${i}`, payload: i })));
    expect(new Set(ids.map((_, i) => shardOf(`ev-${i}`, 4))).size).toBe(4);
    await until(() => heard.length >= 40, 10_000, 'the completed events of every shard').catch(async (err: Error) => {
      const got = new Set(heard.map((e) => e.jobId));
      const c = fixture.server.client();
      const k = lanes.keysOf(QUEUE);
      const info = { completed: (await lanes.stats(QUEUE)).totals.completed, heard: heard.length,
        missing: ids.map((id, i) => [shardOf(`ev-${i}`, 4), got.has(id)]).filter(([, h]) => !h).map(([sh]) => sh),
        channels: await c.pubsub('CHANNELS'), listeners: await Promise.all([0, 1, 2, 3].map((i) => c.hgetall(k.shardKeys(i).listeners))) };
      c.disconnect();
      throw new Error(`${err.message}: ${JSON.stringify(info)}`);
    });
    expect(heard.map((e) => e.jobId).sort()).toEqual([...ids].sort());

    // A listener that was there before the queue was sharded takes up the new shards with its next
    // renewal (every 3 s), then says so in each shard's listeners key.
    const other = 'e2e-sharded-later';
    const { app: early } = await bootApp(fixture.server.url, [LaterAuditor], { shardsOnOneServer: true });
    fixture.apps.push(early);
    await lanes.shards(other, 4);
    const keys = lanes.keysOf(other);
    await until(async () => (await Promise.all([1, 2, 3].map((i) => producerOf(lanes).exists(keys.shardKeys(i).listeners)))).every((n) => n === 1),
      10_000, 'the early listener in the new shards');
    const groups = Array.from({ length: 40 }, (_, i) => `late-${i}`).filter((g) => shardOf(g, 4) > 0);
    const later = await lanes.submitMany(other, groups.map((group) => ({ group, payload: 1 })));
    await until(() => laterHeard.length >= later.length, 10_000, 'the submitted events of the new shards');
    expect(laterHeard.sort()).toEqual([...later].sort());
  });
});
