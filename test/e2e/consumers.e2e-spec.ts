import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService, Weighted } from '../../lib';
import { TestRedisServer } from '../support/redis-server';
import { bootApp, nestFixture, until } from '../support/nest';

const ONCE_QUEUE = 'e2e-once';
const WEIGHTED_QUEUE = 'e2e-weighted';
const RETRY_QUEUE = 'e2e-retry';

const seen = { once: [] as LaneJob[], weighted: [] as string[], retry: [] as { attempt: number; at: number }[] };

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
