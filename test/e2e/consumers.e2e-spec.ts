import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService, Weighted } from '../../lib';
import { TestRedisServer } from '../support/redis-server';
import { bootApp, gate, nestFixture, until } from '../support/nest';
import { keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';

const ONCE_QUEUE = 'e2e-once';
const WEIGHTED_QUEUE = 'e2e-weighted';
const WIDE_WEIGHTED_QUEUE = 'e2e-weighted-50';
const RETRY_QUEUE = 'e2e-retry';
const HELD_QUEUE = 'e2e-weighted-held';

const seen = { once: [] as LaneJob[], weighted: [] as string[], wide: [] as string[], retry: [] as { attempt: number; at: number }[] };

@LaneConsumer(ONCE_QUEUE, { concurrency: 8 })
@Injectable()
class OnceWorker {
  async handle(job: LaneJob): Promise<void> {
    seen.once.push(job);
    await new Promise((r) => setImmediate(r));
  }
}

@LaneConsumer(WEIGHTED_QUEUE, { concurrency: 1 })
@Weighted()
@Injectable()
class WeightedWorker {
  async handle(job: LaneJob): Promise<void> {
    seen.weighted.push(job.group);
  }
}

@LaneConsumer(WIDE_WEIGHTED_QUEUE, { concurrency: 50 })
@Weighted()
@Injectable()
class WideWeightedWorker {
  async handle(job: LaneJob): Promise<void> {
    seen.wide.push(job.group);
    await new Promise((r) => setImmediate(r));
  }
}

const KEEP_QUEUE = 'e2e-keep';

/** Returns a result; its consumer keeps completed rows a minute, whatever the module says. */
@LaneConsumer(KEEP_QUEUE, { concurrency: 2, keepCompletedMs: 60_000 })
@Injectable()
class KeepingWorker {
  async handle(job: LaneJob<{ n: number }>): Promise<{ doubled: number } | (() => void)> {
    // NOTE: a function has no JSON form: the job still completes, without a result.
    if (job.payload.n < 0) return () => undefined;
    return { doubled: job.payload.n * 2 };
  }
}

const heldTurn = { gate: gate(), started: [] as LaneJob[] };

@LaneConsumer(HELD_QUEUE, { concurrency: 2, leaseMs: 300 })
@Weighted()
@Injectable()
class HeldTurnWorker {
  async handle(job: LaneJob): Promise<void> {
    heldTurn.started.push(job);
    await heldTurn.gate.promise;
  }
}

@LaneConsumer(RETRY_QUEUE, { concurrency: 2, maxAttempts: 3 })
@Injectable()
class FlakyWorker {
  async handle(job: LaneJob): Promise<void> {
    seen.retry.push({ attempt: job.attempt, at: Date.now() });
    throw new Error(`boom on attempt ${job.attempt}`);
  }
}

describe('consumers (real module, real server)', () => {
  const fixture = nestFixture();
  const { apps } = fixture;
  let server: TestRedisServer;
  beforeAll(() => {
    ({ server } = fixture);
  });

  it('handles every job exactly once across lanes, with two apps at concurrency 8', async () => {
    const a = await bootApp(server.url, [OnceWorker]);
    const b = await bootApp(server.url, [OnceWorker]);
    apps.push(a.app, b.app);
    const lanes = a.app.get(LanesService);
    const items = Array.from({ length: 2_000 }, (_, i) => ({ group: `tenant-${i % 50}`, payload: { i } }));
    const ids = await lanes.submitMany(ONCE_QUEUE, items);
    await until(async () => (await lanes.stats(ONCE_QUEUE)).totals.completed === 2_000, 20_000, 'all completions');
    const handled = seen.once.map((j) => j.id);
    expect(new Set(handled).size).toBe(2_000);
    expect(handled).toHaveLength(2_000);
    expect(new Set(ids)).toEqual(new Set(handled));
    expect(await lanes.lanes(ONCE_QUEUE)).toEqual([]);
  });

  it('keeps the handler\'s return value as the result, for as long as the consumer says; waitFor sees it', async () => {
    const { app } = await bootApp(server.url, [KeepingWorker]);
    apps.push(app);
    const lanes = app.get(LanesService);
    const id = await lanes.submit(KEEP_QUEUE, 'a', { n: 21 });
    expect(await lanes.waitFor(KEEP_QUEUE, id, { timeoutMs: 5_000 })).toMatchObject({ id, state: 'completed', result: { doubled: 42 } });
    const info = await lanes.job(KEEP_QUEUE, id);
    expect(info).toMatchObject({ state: 'completed', result: { doubled: 42 } });
    const probe = server.client();
    try {
      expect(await probe.pttl(keysOf(KEEP_QUEUE).job(id))).toBeGreaterThan(50_000);
    } finally {
      await probe.quit();
    }
    const odd = await lanes.submit(KEEP_QUEUE, 'a', { n: -1 });
    const done = await lanes.waitFor(KEEP_QUEUE, odd, { timeoutMs: 5_000 });
    expect(done).toMatchObject({ state: 'completed' });
    expect(done).not.toHaveProperty('result');
  });

  it('serves weights 3 : 1 with a @Weighted() consumer at concurrency 1', async () => {
    // The lanes are filled before the app boots so the first turn already sees both.
    const seed = await bootApp(server.url, []);
    const seedLanes = seed.app.get(LanesService);
    await seedLanes.weight(WEIGHTED_QUEUE, 'gold', 3);
    await seedLanes.weight(WEIGHTED_QUEUE, 'free', 1);
    await seedLanes.submitMany(WEIGHTED_QUEUE, Array.from({ length: 60 }, (_, i) => ({ group: 'gold', payload: i })));
    await seedLanes.submitMany(WEIGHTED_QUEUE, Array.from({ length: 20 }, (_, i) => ({ group: 'free', payload: i })));
    await seed.app.close();

    const { app } = await bootApp(server.url, [WeightedWorker]);
    apps.push(app);
    await until(() => seen.weighted.length >= 80, 10_000, '80 weighted jobs');
    for (let turn = 0; turn < 20; turn++) {
      expect(seen.weighted.slice(turn * 4, turn * 4 + 4)).toEqual(['gold', 'gold', 'gold', 'free']);
    }
  });

  it('keeps weights 3 : 1 within one turn at concurrency 50 (many weighted turns per claim call)', async () => {
    const seed = await bootApp(server.url, []);
    const seedLanes = seed.app.get(LanesService);
    await seedLanes.weight(WIDE_WEIGHTED_QUEUE, 'gold', 3);
    await seedLanes.weight(WIDE_WEIGHTED_QUEUE, 'free', 1);
    await seedLanes.submitMany(WIDE_WEIGHTED_QUEUE, Array.from({ length: 600 }, (_, i) => ({ group: 'gold', payload: i })));
    await seedLanes.submitMany(WIDE_WEIGHTED_QUEUE, Array.from({ length: 300 }, (_, i) => ({ group: 'free', payload: i })));
    await seed.app.close();

    const { app } = await bootApp(server.url, [WideWeightedWorker]);
    apps.push(app);
    await until(() => seen.wide.length >= 400, 10_000, '400 weighted jobs');
    // In the order the handlers started: after every whole turn of the ring (gold 3, free 1) the
    // counts are exactly 3 : 1, so no prefix is more than one turn away from it.
    const gold = seen.wide.slice(0, 400).filter((g) => g === 'gold').length;
    expect(Math.abs(gold - 300)).toBeLessThanOrEqual(3);
    let worst = 0;
    let g = 0;
    seen.wide.slice(0, 400).forEach((group, i) => {
      if (group === 'gold') g += 1;
      worst = Math.max(worst, Math.abs(4 * g - 3 * (i + 1)));
    });
    expect(worst).toBeLessThanOrEqual(4 * 3);
  });

  it('holds the jobs of a turn beyond the free slots, leases renewed, and starts them in order as slots free', async () => {
    const seed = await bootApp(server.url, []);
    const seedLanes = seed.app.get(LanesService);
    await seedLanes.weight(HELD_QUEUE, 'a', 5);
    const ids = await seedLanes.submitMany(HELD_QUEUE, Array.from({ length: 5 }, (_, i) => ({ group: 'a', payload: i })));
    await seed.app.close();

    const { app, logger } = await bootApp(server.url, [HeldTurnWorker]);
    apps.push(app);
    const lanes = app.get(LanesService);
    const client = server.client();
    try {
      await until(() => heldTurn.started.length === 2, 5_000, 'two handlers to start');
      // One turn served all five (K = weight 5): two run, three are held. Wait past the lease they
      // were claimed under: renewal keeps every one of them, none is reaped or served again.
      expect(await lanes.lane(HELD_QUEUE, 'a')).toMatchObject({ pending: 0, active: 5 });
      await waitPastServerTime(client, heldTurn.started[0].leaseUntil + 200);
      const leases = await client.zrange(keysOf(HELD_QUEUE).active, 0, -1, 'WITHSCORES');
      expect(leases.filter((_, i) => i % 2 === 0).sort()).toEqual([...ids].sort());
      const now = await serverTimeMs(client);
      expect(leases.filter((_, i) => i % 2 === 1).every((until) => Number(until) > now)).toBe(true);
      heldTurn.gate.open();
      await until(async () => (await lanes.lane(HELD_QUEUE, 'a')).active === 0, 5_000, 'the turn to finish');
      expect(heldTurn.started.map((j) => j.id)).toEqual(ids);
      expect(heldTurn.started.every((j) => j.attempt === 1)).toBe(true);
      expect(logger.text('warn')).not.toMatch(/lost the lease|finished after its lease/);
    } finally {
      await client.quit();
    }
  });

  it('retries a throwing handler with backoff, then dead-letters it with the error', async () => {
    const { app, logger } = await bootApp(server.url, [FlakyWorker], { backoff: { delayMs: 100, factor: 2 } });
    apps.push(app);
    const lanes = app.get(LanesService);
    const id = await lanes.submit(RETRY_QUEUE, 'acme', { x: 1 });
    await until(async () => (await lanes.dead(RETRY_QUEUE)).length === 1, 10_000, 'the job to die');
    expect(seen.retry.map((r) => r.attempt)).toEqual([1, 2, 3]);
    // Backoff 100 ms, then 200 ms (server clock; allow a little scheduling slack).
    expect(seen.retry[1].at - seen.retry[0].at).toBeGreaterThanOrEqual(90);
    expect(seen.retry[2].at - seen.retry[1].at).toBeGreaterThanOrEqual(190);
    const [dead] = await lanes.dead(RETRY_QUEUE);
    expect(dead).toMatchObject({ id, group: 'acme', attempt: 3, lastError: 'boom on attempt 3', payload: { x: 1 } });
    expect(logger.text('error')).toContain(`job ${id} of lane "acme" is dead after attempt 3`);
    expect(await lanes.lane(RETRY_QUEUE, 'acme')).toMatchObject({ pending: 0, active: 0, inRing: false });
  });
});
