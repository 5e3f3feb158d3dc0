import { mintJobId } from '../../lib';
import { IDLE_OVERDUE_MS } from '../../lib/runner/claim-loop';
import { bootApp, until } from '../support/nest';
import { partitionFixture } from './support/partition-setup';
import { Tally, tallyWorker } from './support/tally';
import { pause, report } from './support/wait';

/**
 * Consumers on a network path that goes dark without a FIN or an RST (a dropped route, a paused VM),
 * that resets, or that is slow: a loopback proxy (test/support/partition-proxy.ts) between a real
 * Nest app and its own redis-server.
 */
describe('faults: partitions, consumers', () => {
  const f = partitionFixture();
  let tally: Tally;
  beforeEach(() => {
    tally = new Tally();
  });

  it('a consumer blackholed mid-run beside a healthy one: nothing completed twice, its late acks refused, it claims again at the heal', async () => {
    const queue = 'part-mid';
    const opts = { concurrency: 4, leaseMs: 1_000 };
    const work = () => pause(10);
    const a = await bootApp(f.proxy.url, [tallyWorker(queue, 'dark', tally, opts, work)], { idleBlockMs: 500 });
    const b = await bootApp(f.server.url, [tallyWorker(queue, 'healthy', tally, opts, work)], { idleBlockMs: 500 });
    f.apps.push(a.app, b.app);
    const lanes = f.lanes(f.server.url);
    const total = 600;
    for (let i = 0; i < total; i += 100) {
      await lanes.submitMany(queue, Array.from({ length: 100 }, (_, j) => ({ group: `tenant-${(i + j) % 10}`, payload: i + j })));
    }
    await until(() => tally.starts.filter((s) => s.app === 'dark').length >= 40, 20_000, 'the dark-to-be consumer to run 40 jobs');
    f.proxy.blackhole();
    const darkAt = Date.now();
    const heldByDark = tally.openOf('dark');
    // The healthy consumer reaps the dark one's leases once they end and serves those jobs again.
    await until(() => tally.starts.some((s) => s.app === 'healthy' && heldByDark.has(s.id)), 20_000, 'a job of the dark consumer served again');
    f.proxy.heal();
    const healAt = Date.now();
    await until(() => tally.starts.some((s) => s.app === 'dark' && s.at >= healAt), 10_000, 'the dark consumer to claim again');
    const claimsAgainMs = tally.starts.find((s) => s.app === 'dark' && s.at >= healAt)!.at - healAt;
    await until(() => tally.completed.size === total, 30_000, `all ${total} jobs completed`);
    await until(async () => (await lanes.stats(queue)).active === 0, 10_000, 'no lease left');
    const stats = await lanes.stats(queue);
    const refused = tally.lost.get('dark')?.length ?? 0;
    const servedAgain = tally.starts.filter((s) => s.app === 'healthy' && heldByDark.has(s.id)).length;
    report(`partition, consumer dark ${healAt - darkAt} ms beside a healthy one: ${total} jobs, completed twice ${tally.completedTwice()}, `
      + `held by the dark one ${heldByDark.size}, served again ${servedAgain}, late acks refused ${refused}, claims again ${claimsAgainMs} ms after the heal`);
    expect(tally.completedTwice()).toBe(0);
    expect(stats.totals.completed).toBe(total);
    expect(refused).toBeGreaterThan(0);
  });

  it('an idle consumer blackholed and healed handles the next submit at once', async () => {
    const queue = 'part-idle';
    const a = await bootApp(f.proxy.url, [tallyWorker(queue, 'idle', tally, { concurrency: 2 })], { idleBlockMs: 10_000 });
    f.apps.push(a.app);
    const admin = f.server.client();
    try {
      await until(async () => ((await admin.client('LIST')) as string).includes('cmd=brpop'), 5_000, 'the loop to block on the wake list');
    } finally {
      await admin.quit();
    }
    f.proxy.blackhole();
    await pause(1_500);
    f.proxy.heal();
    const lanes = f.lanes(f.server.url);
    const t0 = Date.now();
    const id = await lanes.submit(queue, 'late', { after: 'heal' });
    await until(() => tally.completed.has(id), 8_000, 'the job submitted after the heal');
    const ms = Date.now() - t0;
    report(`partition, idle consumer dark 1.5 s then healed: next submit completed ${ms} ms after it was sent (idleBlockMs 10,000)`);
    // NOTE: well below idleBlockMs: the blocked wait was woken by the submit, not timed out.
    expect(ms).toBeLessThan(5_000);
  });

  it('an idle consumer whose connections reset while it waits for a timed pause to end serves the lane at the pause end, not a whole wait later', async () => {
    const queue = 'part-timer';
    const a = await bootApp(f.proxy.url, [tallyWorker(queue, 'idle', tally, { concurrency: 1 })], { idleBlockMs: 10_000 });
    f.apps.push(a.app);
    const lanes = f.lanes(f.server.url);
    const admin = f.server.client();
    try {
      // NOTE: paused before its job goes in, so no claim can serve it first.
      const t0 = Date.now();
      await lanes.pause(queue, 'held', { forMs: 3_000 });
      const held = await lanes.submit(queue, 'held', { n: 1 });
      // The loop claims once more (woken by this submit) and learns when the pause ends.
      const woke = await lanes.submit(queue, 'now', { n: 0 });
      await until(() => tally.completed.has(woke), 5_000, 'the job that wakes the loop');
      await until(async () => ((await admin.client('LIST')) as string).includes('cmd=brpop'), 5_000, 'the loop to block on the wake list');
      // NOTE: late in the wait: ioredis sends the BRPOP again at the reconnect with its whole timeout.
      await pause(Math.max(0, t0 + 2_000 - Date.now()));
      expect(f.proxy.resetAll()).toBeGreaterThan(0);
      await until(() => tally.starts.some((s) => s.id === held), 10_000, 'the paused lane served');
      const ms = tally.starts.find((s) => s.id === held)!.at - t0;
      report(`partition, connections reset 2 s into an idle wait for a 3 s timed pause: the lane served ${ms} ms after the pause began (bound ${3_000 + IDLE_OVERDUE_MS} ms + a reconnect)`);
      expect(ms).toBeGreaterThanOrEqual(2_900);
      expect(ms).toBeLessThan(3_000 + IDLE_OVERDUE_MS + 700);
    } finally {
      await admin.quit();
    }
  });

  it('a reset storm (20 resets, half of them after the server ran the command): each job handled exactly once, no unhandled rejection, no listener warning', async () => {
    const queue = 'part-storm';
    const unhandled: unknown[] = [];
    const warnings: string[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
    try {
      const a = await bootApp(f.proxy.url, [tallyWorker(queue, 'storm', tally, { concurrency: 8, leaseMs: 5_000 }, () => pause(1))],
        { idleBlockMs: 500 });
      f.apps.push(a.app);
      const lanes = f.lanes(f.proxy.url);
      const total = 3_000;
      let retries = 0;
      const producing = (async () => {
        for (let i = 0; i < total; i += 25) {
          const items = Array.from({ length: 25 }, (_, j) => ({ group: `tenant-${(i + j) % 20}`, payload: i + j, opts: { jobId: mintJobId() } }));
          for (;;) {
            try {
              await lanes.submitMany(queue, items);
              break;
            } catch {
              retries += 1;
              await pause(20);
            }
          }
        }
      })();
      const t0 = Date.now();
      let resets = 0;
      for (let round = 0; round < 20; round++) {
        await until(() => tally.starts.length >= 120 * (round + 1), 30_000, `${120 * (round + 1)} jobs handled`);
        if (round % 2 === 0) resets += f.proxy.resetAll();
        else f.proxy.resetOnNextReply();
      }
      await producing;
      // NOTE: counted on the server: a complete whose reply a reset cut is re-sent by ioredis and
      // answered false (it was done already), so the consumer sees no completed event for it.
      await until(async () => (await lanes.stats(queue)).totals.completed === total, 40_000, `all ${total} jobs completed`);
      const stats = await lanes.stats(queue);
      const handled = new Set(tally.starts.map((s) => s.id)).size;
      report(`partition, reset storm: ${total} jobs in ${Date.now() - t0} ms, ${resets} connections reset in 10 rounds + 10 replies cut `
        + `(${f.proxy.counts.resets} resets in all), handled ${handled}, twice ${tally.startedTwice()}, submitted ${stats.totals.submitted}, `
        + `reaped ${stats.totals.reaped}, completions answered false (re-sent) ${tally.lost.get('storm')?.length ?? 0}, `
        + `producer retries ${retries}, unhandled rejections ${unhandled.length}, warnings ${warnings.length}`);
      expect(handled).toBe(total);
      expect(tally.startedTwice()).toBe(0);
      expect(stats.totals.submitted).toBe(total);
      expect(stats.totals.completed).toBe(total);
      expect(unhandled).toEqual([]);
      expect(warnings).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('warning', onWarning);
    }
  });

  it('200 ms of latency each way with leases of 3 s: no lease lapses, handlers longer than a lease included', async () => {
    const queue = 'part-slow';
    const long = new Set<number>([0, 7, 14, 21, 28, 35]);
    const a = await bootApp(f.proxy.url, [tallyWorker(queue, 'slow', tally, { concurrency: 10, leaseMs: 3_000 },
      (job) => pause(long.has(job.payload as number) ? 4_000 : 20))], { idleBlockMs: 2_000 });
    f.apps.push(a.app);
    f.proxy.delay(200);
    const lanes = f.lanes(f.server.url);
    const probe = f.lanes(f.proxy.url);
    await probe.stats(queue);
    const p0 = Date.now();
    await probe.stats(queue);
    const rttMs = Date.now() - p0;
    const total = 60;
    await lanes.submitMany(queue, Array.from({ length: total }, (_, i) => ({ group: `tenant-${i % 6}`, payload: i })));
    const t0 = Date.now();
    await until(() => tally.completed.size === total, 40_000, `all ${total} jobs completed`);
    const stats = await lanes.stats(queue);
    const lost = tally.lost.get('slow')?.length ?? 0;
    report(`partition, 200 ms each way (a call ${rttMs} ms), leases 3 s: ${total} jobs (${long.size} of 4 s) in ${Date.now() - t0} ms, `
      + `reaped ${stats.totals.reaped}, lost ${lost}, handled twice ${tally.startedTwice()}`);
    expect(rttMs).toBeGreaterThanOrEqual(400);
    expect(stats.totals.reaped).toBe(0);
    expect(lost).toBe(0);
    expect(tally.startedTwice()).toBe(0);
  });
});
