import IORedis from 'ioredis';
import { testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { onScriptPath } from '../support/script-path';
import { LoadRun } from './support/load';
import { pause, report } from './support/wait';

/**
 * Mid-load, the server forgets every script (SCRIPT FLUSH, on connections that run the scripts by
 * EVALSHA), or the function library (FUNCTION FLUSH), or drops every client connection (CLIENT KILL
 * TYPE normal, the library's included). ioredis answers NOSCRIPT with EVAL, the library is loaded
 * again when a call finds its function gone, and ioredis re-sends what was in flight after it
 * reconnects; the scripts must make that harmless.
 */
describe('faults: SCRIPT FLUSH, FUNCTION FLUSH and CLIENT KILL TYPE normal mid-load', () => {
  let server: TestRedisServer;
  let admin: IORedis;

  beforeAll(async () => {
    server = await TestRedisServer.start();
    admin = server.client();
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  /** How many NOSCRIPT errors the server has answered (each one a script ioredis then sent with EVAL), and how many libraries it loaded. */
  const reloads = async (): Promise<{ noscript: number; loads: number }> => ({
    noscript: Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(await admin.info('errorstats'))?.[1] ?? 0),
    loads: Number(/cmdstat_function\|load:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0),
  });

  describe.each([
    ['SCRIPT FLUSH', 'evalsha' as const, async () => ((await admin.script('FLUSH')) === 'OK' ? 1 : 0)],
    ['FUNCTION FLUSH', 'fcall' as const, async () => ((await admin.call('FUNCTION', 'FLUSH')) === 'OK' ? 1 : 0)],
    // NOTE: SKIPME is the default, so the admin connection that sends it survives; every other goes.
    ['CLIENT KILL TYPE normal', 'fcall' as const, async () => Number(await admin.client('KILL', 'TYPE', 'normal'))],
  ])('%s', (fault, path, inject) => {
    onScriptPath(path);

    it(`x5 (minted ids, scripts by ${path}): work continues, nothing lost, nothing admitted twice`, async () => {
      const total = 3_000;
      // NOTE: ids minted inside submit (no jobId), so a re-sent submit must recognise its own job.
      const run = new LoadRun({ url: server.url, queue: testQueue(), total, groups: 10, producers: 2, batchProducers: 1,
        consumers: 2, leaseMs: 1_000, ownIds: false }).start();
      const before = await reloads();
      const hits: number[] = [];
      for (let i = 1; i <= 5; i++) {
        await run.ackedAtLeast((total * i) / 7);
        hits.push(await inject());
        await pause(20);
      }
      const completedAtLastFault = run.completions.length;
      const figures = await run.finish();
      const after = await reloads();
      const noscript = after.noscript - before.noscript;
      const loads = after.loads - before.loads;

      report(`${fault} x5 mid-load (hit ${hits.join('/')}, NOSCRIPT answered ${noscript}, library loaded ${loads}×): jobs lost ${figures.lost} of ${figures.submitted}; admitted twice ${figures.admittedTwice}, `
        + `handled twice ${figures.handledTwice}, reaped ${figures.reaped}, refused completions ${figures.refusedCompletions}, `
        + `consumer errors ${figures.consumerErrors}, producer retries ${figures.producerRetries}`);
      expect(figures.submitted).toBe(total);
      expect(figures.lost).toBe(0);
      expect(figures.handled).toBe(total);
      expect(figures.admittedTwice).toBe(0);
      expect(run.completions.length).toBeGreaterThan(completedAtLastFault);
      expect(hits.every((n) => n > 0)).toBe(true);
      if (fault === 'SCRIPT FLUSH') expect(noscript).toBeGreaterThan(0);
      if (fault === 'FUNCTION FLUSH') expect(loads).toBeGreaterThanOrEqual(5);
    });
  });
});
