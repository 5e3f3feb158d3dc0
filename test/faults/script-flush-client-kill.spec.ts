import IORedis from 'ioredis';
import { testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { LoadRun } from './support/load';
import { pause, report } from './support/wait';

/**
 * Mid-load, the server forgets every script (SCRIPT FLUSH) or drops every client connection
 * (CLIENT KILL TYPE normal, the library's included). ioredis answers NOSCRIPT with EVAL and re-sends
 * what was in flight after it reconnects; the scripts must make that harmless.
 */
describe('faults: SCRIPT FLUSH and CLIENT KILL TYPE normal mid-load', () => {
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

  /** How many NOSCRIPT errors the server has answered (each one a script ioredis then sent with EVAL). */
  const noscriptErrors = async (): Promise<number> =>
    Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(await admin.info('errorstats'))?.[1] ?? 0);

  it.each([
    ['SCRIPT FLUSH', async () => ((await admin.script('FLUSH')) === 'OK' ? 1 : 0)],
    // NOTE: SKIPME is the default, so the admin connection that sends it survives; every other goes.
    ['CLIENT KILL TYPE normal', async () => Number(await admin.client('KILL', 'TYPE', 'normal'))],
  ])('%s (x5, minted ids): work continues, nothing lost, nothing admitted twice', async (fault, inject) => {
    const total = 3_000;
    // NOTE: ids minted inside submit (no jobId), so a re-sent submit must recognise its own job.
    const run = new LoadRun({ url: server.url, queue: testQueue(), total, groups: 10, producers: 2, batchProducers: 1,
      consumers: 2, leaseMs: 1_000, ownIds: false }).start();
    const noscriptBefore = await noscriptErrors();
    const hits: number[] = [];
    for (let i = 1; i <= 5; i++) {
      await run.ackedAtLeast((total * i) / 7);
      hits.push(await inject());
      await pause(20);
    }
    const completedAtLastFault = run.completions.length;
    const figures = await run.finish();
    const noscript = (await noscriptErrors()) - noscriptBefore;

    report(`${fault} x5 mid-load (hit ${hits.join('/')}, NOSCRIPT answered ${noscript}): jobs lost ${figures.lost} of ${figures.submitted}; admitted twice ${figures.admittedTwice}, `
      + `handled twice ${figures.handledTwice}, reaped ${figures.reaped}, refused completions ${figures.refusedCompletions}, `
      + `consumer errors ${figures.consumerErrors}, producer retries ${figures.producerRetries}`);
    expect(figures.submitted).toBe(total);
    expect(figures.lost).toBe(0);
    expect(figures.handled).toBe(total);
    expect(figures.admittedTwice).toBe(0);
    expect(run.completions.length).toBeGreaterThan(completedAtLastFault);
    expect(hits.every((n) => n > 0)).toBe(true);
    if (fault === 'SCRIPT FLUSH') expect(noscript).toBeGreaterThan(0);
  });
});
