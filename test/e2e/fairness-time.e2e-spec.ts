import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService } from '../../lib';
import { bootApp, nestFixture, until } from '../support/nest';

const TIME_QUEUE = 'e2e-fair-time';
const JOBS_QUEUE = 'e2e-fair-jobs';
/** How long a handler of each lane takes: the slow lane's jobs take ten times the fast lane's. */
const HOLD_MS: Record<string, number> = { slow: 50, fast: 5 };

/** Handler time per lane, counted only for jobs that started inside the measured window. */
const spent = { window: { from: Infinity, to: -Infinity }, ms: new Map<string, number>() };
const hold = async (job: LaneJob): Promise<void> => {
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, HOLD_MS[job.group]));
  if (t0 >= spent.window.from && t0 < spent.window.to) {
    const key = `${job.queue}:${job.group}`;
    spent.ms.set(key, (spent.ms.get(key) ?? 0) + (Date.now() - t0));
  }
};

@LaneConsumer(TIME_QUEUE, { concurrency: 4 })
@Injectable()
class TimedWorker {
  handle = hold;
}

@LaneConsumer(JOBS_QUEUE, { concurrency: 4 })
@Injectable()
class TurnsWorker {
  handle = hold;
}

describe("fairness 8: by: 'time' shares the machine's time, not its turns", () => {
  const fixture = nestFixture();

  /** Fills both lanes deep, lets the consumer run `ms` in a window, returns the slow lane's share of handler time. */
  async function slowShare(queue: string, worker: new () => unknown, by: 'jobs' | 'time', ms: number): Promise<number> {
    const { app } = await bootApp(fixture.server.url, [worker as never]);
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await lanes.pauseQueue(queue);
    await lanes.fairness(queue, { by });
    await lanes.submitMany(queue, Array.from({ length: 1_500 }, (_, i) => ({ group: 'slow', payload: i })));
    for (let n = 0; n < 4; n++) await lanes.submitMany(queue, Array.from({ length: 3_000 }, (_, i) => ({ group: 'fast', payload: i })));
    // The first second settles the consumer (and, in time, the lanes' measured means); then the window.
    const start = Date.now();
    spent.window = { from: start + 1_000, to: start + 1_000 + ms };
    await lanes.resumeQueue(queue);
    await until(() => Date.now() > spent.window.to + 200, ms + 5_000, 'the window to end');
    const lane = await lanes.lane(queue, 'fast');
    // Both lanes stayed backlogged through the window.
    expect(lane.pending).toBeGreaterThan(0);
    expect((await lanes.lane(queue, 'slow')).pending).toBeGreaterThan(0);
    const slow = spent.ms.get(`${queue}:slow`) ?? 0;
    const fast = spent.ms.get(`${queue}:fast`) ?? 0;
    process.stdout.write(`fairness 8, by ${by}: slow lane ${(100 * slow / (slow + fast)).toFixed(1)}% of handler time over ${ms} ms\n`);
    return slow / (slow + fast);
  }

  it("with by: 'time', each lane's share of handler time over 10 s is between 40% and 60%", async () => {
    const share = await slowShare(TIME_QUEUE, TimedWorker, 'time', 10_000);
    expect(share).toBeGreaterThanOrEqual(0.4);
    expect(share).toBeLessThanOrEqual(0.6);
  }, 30_000);

  it("with by: 'jobs' the slow lane takes about 90% of it", async () => {
    const share = await slowShare(JOBS_QUEUE, TurnsWorker, 'jobs', 4_000);
    expect(share).toBeGreaterThan(0.8);
  }, 30_000);
});
