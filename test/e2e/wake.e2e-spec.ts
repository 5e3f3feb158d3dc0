import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService } from '../../lib';
import { bootApp, nestFixture, until } from '../support/nest';

const DELAY_QUEUE = 'e2e-wake-delay';

const STEER_QUEUE = 'e2e-wake-steer';

const handledAt: number[] = [];
const steered: { group: string; at: number }[] = [];

@LaneConsumer(DELAY_QUEUE, { concurrency: 2 })
@Injectable()
class DelayWorker {
  async handle(): Promise<void> {
    handledAt.push(Date.now());
  }
}

@LaneConsumer(STEER_QUEUE, { concurrency: 2 })
@Injectable()
class SteerWorker {
  async handle(job: LaneJob): Promise<void> {
    steered.push({ group: job.group, at: Date.now() });
  }
}

/** True once a client of the server is blocked (the idle loop's BRPOP on its wake list). */
async function loopIsBlocked(lanes: LanesService): Promise<boolean> {
  const info = await (lanes as unknown as { ctx: { client: { info(s: string): Promise<string> } } }).ctx.client.info('clients');
  return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0) >= 1;
}

describe('idle consumers wake for due times (no polling)', () => {
  const fixture = nestFixture();

  it('an idle consumer handles a job delayed 500 ms between 450 and 1,000 ms after the submit', async () => {
    // idleBlockMs is 5 s (the default): without a wake the loop would sleep through the due time.
    const { app } = await bootApp(fixture.server.url, [DelayWorker]);
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await until(() => loopIsBlocked(lanes), 5_000, 'the loop to block on its wake list');
    const submittedAt = Date.now();
    await lanes.submit(DELAY_QUEUE, 'g', {}, { delayMs: 500 });
    await until(() => handledAt.length === 1, 3_000, 'the delayed job');
    const after = handledAt[0] - submittedAt;
    expect(after).toBeGreaterThanOrEqual(450);
    expect(after).toBeLessThanOrEqual(1_000);
  });

  it('an idle consumer wakes when a timed pause ends and when a rate window reopens', async () => {
    const { app } = await bootApp(fixture.server.url, [SteerWorker]);
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    await until(() => loopIsBlocked(lanes), 5_000, 'the loop to block on its wake list');
    const pausedAt = Date.now();
    await lanes.pause(STEER_QUEUE, 'p', { forMs: 400, reason: 'test' });
    await lanes.submit(STEER_QUEUE, 'p', {});
    await until(() => steered.length === 1, 3_000, 'the job of the paused lane');
    expect(steered[0].at - pausedAt).toBeGreaterThanOrEqual(350);
    expect(steered[0].at - pausedAt).toBeLessThanOrEqual(1_000);

    await lanes.rate(STEER_QUEUE, 'r', { max: 1, perMs: 500 });
    await lanes.submitMany(STEER_QUEUE, [{ group: 'r', payload: 1 }, { group: 'r', payload: 2 }]);
    await until(() => steered.length === 3, 3_000, 'both jobs of the rated lane');
    const gap = steered[2].at - steered[1].at;
    expect(gap).toBeGreaterThanOrEqual(450);
    expect(gap).toBeLessThanOrEqual(1_000);
  });
});
