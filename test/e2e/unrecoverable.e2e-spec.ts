import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService, UnrecoverableError } from '../../lib';
import { bootApp, nestFixture, until } from '../support/nest';

const QUEUE = 'e2e-unrecoverable';
const attempts: Record<string, number[]> = {};

/** Reports progress, then fails: unrecoverably for `bad` payloads, else as an ordinary error. */
@LaneConsumer(QUEUE, { concurrency: 2, maxAttempts: 5 })
@Injectable()
class PickyWorker {
  constructor(private readonly lanes: LanesService) {}

  async handle(job: LaneJob<{ bad: boolean }>): Promise<void> {
    (attempts[job.id] ??= []).push(job.attempt);
    expect(await this.lanes.progress(QUEUE, job.id, job.attempt, { step: job.attempt })).toBe(true);
    if (job.payload.bad) throw new UnrecoverableError('the input can never work');
    if (job.attempt < 2) throw new Error('flaky');
  }
}

describe('UnrecoverableError and progress in a consumer', () => {
  const fx = nestFixture();

  it('a handler that throws UnrecoverableError dead-letters the job at its first attempt, attempts left or not', async () => {
    const { app } = await bootApp(fx.server.url, [PickyWorker], { backoff: { delayMs: 1 } });
    fx.apps.push(app);
    const lanes = app.get(LanesService);
    const bad = await lanes.submit(QUEUE, 'a', { bad: true });
    const flaky = await lanes.submit(QUEUE, 'a', { bad: false });
    const dead = await lanes.waitFor(QUEUE, bad, { timeoutMs: 10_000 });
    expect(dead).toMatchObject({ state: 'dead', attempt: 1, lastError: 'the input can never work' });
    expect(await lanes.job(QUEUE, bad)).toMatchObject({ state: 'dead', progress: { step: 1 } });
    expect(attempts[bad]).toEqual([1]);
    // An ordinary error is retried as before.
    await until(async () => (await lanes.job(QUEUE, flaky)) === null, 10_000, 'the flaky job to complete');
    expect(attempts[flaky]).toEqual([1, 2]);
    expect((await lanes.stats(QUEUE)).totals).toMatchObject({ dead: 1, retried: 1, completed: 1 });
  });
});
