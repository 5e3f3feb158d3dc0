import { getEventListeners } from 'events';
import { setFlagsFromString } from 'v8';
import { runInNewContext } from 'vm';
import type IORedis from 'ioredis';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import type { LaneConsumerDescriptor } from '../../lib/interfaces';
import { ClaimLoop } from '../../lib/runner/claim-loop';
import { lanesOn, testQueue } from '../support/lanes';
import { CapturingLogger } from '../support/nest';
import { TestRedisServer } from '../support/redis-server';
import { report, waitFor } from './support/wait';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full collection, in bytes. */
function settledHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const activeTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/**
 * Timers alive in the whole process, the fewest seen over ten samples. At any one instant the
 * loop's backoff sleep may be pending or not, and jest's own timers come and go (a single sample
 * once read 3 before and 5 after); a timer leaked per failed claim would be in every sample, a
 * thousand of them.
 */
async function timers(): Promise<number> {
  let fewest = activeTimers();
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    fewest = Math.min(fewest, activeTimers());
  }
  return fewest;
}

/**
 * An outage that lasts: every claim of the loop is refused by the server (its ACL user may touch
 * no key), so the loop fails, backs off and tries again, a thousand times and more. Each backoff
 * sleep must leave nothing behind on the loop's abort signal, in the timers or in the heap.
 */
describe('faults: a thousand failed claims leave nothing behind', () => {
  let server: TestRedisServer;
  let admin: IORedis;
  const clients: IORedis[] = [];

  beforeAll(async () => {
    server = await TestRedisServer.start();
    admin = server.client();
    await admin.acl('SETUSER', 'nokeys', 'on', '>pw', '+@all');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    await admin.quit();
    await server.stop();
  });

  it('listeners, timers and heap stay flat over 1,000 failed claims', async () => {
    const connect = () => {
      const c = server.client();
      clients.push(c);
      return c;
    };
    const commands = connect();
    await commands.auth('nokeys', 'pw');
    const blocking = connect();
    await blocking.auth('nokeys', 'pw');
    const logger = new CapturingLogger();
    const options = resolveEchoMqOptions({ logger, idleBlockMs: 60_000 });
    const consumer: LaneConsumerDescriptor = {
      name: 'Outage.handle', queue: testQueue(), concurrency: 4, weighted: false, handler: async () => undefined,
    };
    const loop = new ClaimLoop(consumer, {
      lanes: lanesOn(commands, { idleBlockMs: 60_000 }), blocking, options, logger, errorBackoff: { baseMs: 0, maxMs: 0 },
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const signal = (loop as unknown as { abort: AbortController }).abort.signal;
    const failuresLogged = (n: number) => logger.text('error').includes(`(${n} failure(s) in a row)`);

    loop.start();
    try {
      await waitFor('100 failed claims', () => failuresLogged(100), { timeoutMs: 20_000, intervalMs: 5 });
      const before = { listeners: getEventListeners(signal, 'abort').length, timers: await timers(), heap: settledHeap() };
      await waitFor('1,100 failed claims', () => failuresLogged(1_100), { timeoutMs: 60_000, intervalMs: 5 });
      const after = { listeners: getEventListeners(signal, 'abort').length, timers: await timers(), heap: settledHeap() };
      await waitFor('2,100 failed claims', () => failuresLogged(2_100), { timeoutMs: 60_000, intervalMs: 5 });
      const later = settledHeap();
      const growth = [after.heap - before.heap, later - after.heap];
      report(`1,000 failed claims: abort listeners ${before.listeners} -> ${after.listeners}, timers ${before.timers} -> ${after.timers}, `
        + `heap growth per thousand ${growth.map((g) => (g / 1e6).toFixed(2)).join(', ')} MB, warnings ${warnings.length}`);
      expect(after.listeners).toBeLessThanOrEqual(1);
      // NOTE: besides jest's test timeout, the loop's interval and this sampler's own sleep, the
      // backoff sleep may be pending in every sample of one reading and in none of the other.
      expect(after.timers).toBeLessThanOrEqual(before.timers + 1);
      expect(warnings).toEqual([]);
      // NOTE: measured: 1,000 kept listeners grew the settled heap by ~0.8 MB a thousand; flat is
      // ~0.2 MB (the captured log lines). A leak grows both thousands; warm-up (a first run read
      // 0.55 MB) grows only the first, so the smaller of the two is the one held to the bound.
      expect(Math.min(...growth)).toBeLessThan(500_000);
    } finally {
      process.off('warning', onWarning);
      await loop.stop(1_000);
    }
  });
});
