import { lanesOn, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { LoadRun } from './support/load';
import { pause, report, waitFor } from './support/wait';

/**
 * redis-server is SIGKILLed mid-load and started again on the same port from its append-only file
 * (fsync on every write). Producers keep submitting with their own job ids, so a submit retried or
 * re-sent is idempotent; consumers keep claiming through the outage on their own.
 */
describe('faults: redis-server SIGKILLed and restarted mid-load (appendfsync always)', () => {
  let server: TestRedisServer;

  beforeAll(async () => {
    server = await TestRedisServer.start(['--appendonly', 'yes', '--appendfsync', 'always']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('loses no job, drains, and the consumers resume by themselves', async () => {
    const total = 3_000;
    const leaseMs = 1_500;
    const run = new LoadRun({ url: server.url, queue: testQueue(), total, groups: 12, producers: 2, failFastProducers: 1,
      batchProducers: 1, consumers: 2, leaseMs }).start();

    await run.ackedAtLeast(total / 3);
    const killedAt = Date.now();
    await server.kill('SIGKILL');
    const completedBeforeKill = run.completions.length;
    await server.launch();
    const upAt = Date.now();
    const firstAfter = await waitFor('a job completed on the restarted server', () => run.completions.find((t) => t > upAt), { timeoutMs: 20_000, intervalMs: 5 });
    const recoveryMs = firstAfter - upAt;
    const figures = await run.finish();

    report(`restart (SIGKILL, appendfsync always): jobs lost ${figures.lost} of ${figures.submitted}; `
      + `recovery ${recoveryMs} ms from server up to the first completed job (down ${upAt - killedAt} ms); `
      + `handled twice ${figures.handledTwice}, admitted twice ${figures.admittedTwice}, reaped ${figures.reaped}, `
      + `producer retries ${figures.producerRetries}, consumer errors ${figures.consumerErrors}, refused completions ${figures.refusedCompletions}`);
    expect(figures.submitted).toBe(total);
    expect(figures.lost).toBe(0);
    expect(figures.handled).toBe(total);
    expect(figures.admittedTwice).toBe(0);
    expect(run.completions.length).toBeGreaterThan(completedBeforeKill);
    expect(recoveryMs).toBeLessThan(5_000);
  });
});

/**
 * What a SIGKILL of redis-server costs under each persistence setting: jobs are submitted in a
 * steady stream (50 every ~20 ms), the server is killed right after the last
 * acknowledgement and started again from whatever it persisted, and the acknowledged jobs that
 * did not come back are counted. A process kill leaves the OS page cache intact: see README
 * (Guarantees) for what a machine crash adds under everysec.
 */
describe('faults: acknowledged submits lost to a SIGKILL, by persistence setting', () => {
  it.each([
    ['no persistence', [], 'all', 1_000],
    // NOTE: the first snapshot comes two whole seconds after start (the rule compares whole seconds).
    ['RDB (save 1 1)', ['--save', '1 1'], 'some', 2_600],
    ['AOF everysec', ['--appendonly', 'yes', '--appendfsync', 'everysec'], 'none', 1_000],
    ['AOF always', ['--appendonly', 'yes', '--appendfsync', 'always'], 'none', 1_000],
  ])('%s', async (name, args, expected, streamMs) => {
    const server = await TestRedisServer.start(args as string[]);
    const client = server.client();
    try {
      const lanes = lanesOn(client);
      const q = testQueue();
      const t0 = Date.now();
      for (let i = 0; i < 200; i++) await lanes.submit(q, `g${i % 4}`, { i });
      const perSubmitMs = (Date.now() - t0) / 200;
      const acked: string[] = [];
      const streamStart = Date.now();
      while (Date.now() - streamStart < (streamMs as number)) {
        acked.push(...await lanes.submitMany(q, Array.from({ length: 50 }, (_, i) => ({ group: `g${i % 4}`, payload: { i } }))));
        await pause(20);
      }
      const streamedMs = Date.now() - streamStart;
      await server.kill('SIGKILL');
      await server.launch();
      const k = lanes.keysOf(q);
      const pipe = client.pipeline();
      for (const id of acked) pipe.exists(k.job(id));
      const survived = (await pipe.exec())!.filter(([, n]) => n === 1).length;
      const lost = acked.length - survived;
      report(`SIGKILL under ${name}: jobs lost ${lost} of ${acked.length} acknowledged over ${streamedMs} ms; `
        + `one submit took ${perSubmitMs.toFixed(2)} ms`);
      if (expected === 'none') expect(lost).toBe(0);
      if (expected === 'all') expect(lost).toBe(acked.length);
      expect(lost).toBeLessThanOrEqual(acked.length);
    } finally {
      client.disconnect();
      await server.stop();
    }
  });
});
