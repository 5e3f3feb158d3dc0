import type IORedis from 'ioredis';
import { engineFixture, keysOf, serverTimeMs } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

/**
 * position().estimatedWaitMs: ahead x span / count over the queue's current busy spell (see
 * lua/includes/presentRate.lua), so a quiet stretch before a burst does not inflate it.
 */
describe('the wait estimate of position()', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** A lane of `depth` jobs; returns the id of its last one (`ahead` = depth - 1 with no other lane). */
  async function laneOf(q: string, depth: number): Promise<string> {
    const ids = await lanes.submitMany(q, Array.from({ length: depth }, (_, i) => ({ group: 'only', payload: i })));
    return ids[ids.length - 1];
  }

  /**
   * Writes completion buckets as countCompleted leaves them: `counts[s]` completions in the second
   * `sec + s` (s <= 0), the first of each at 300 ms into its second (the bucket's TTL tells it).
   * Retries until the read ran in the same server second as the write; returns what it read and
   * the server time around the read.
   */
  async function readWithBuckets(q: string, jobId: string, counts: Record<number, number>) {
    const stats = keysOf(q).stats;
    for (let attempt = 0; attempt < 10; attempt++) {
      let now = await serverTimeMs(client);
      if (now % 1000 > 600) {
        await new Promise((r) => setTimeout(r, 1000 - (now % 1000) + 20));
        now = await serverTimeMs(client);
      }
      const sec = Math.floor(now / 1000);
      const write = client.multi();
      for (const [offset, n] of Object.entries(counts)) {
        const second = sec + Number(offset);
        const firstAt = second * 1000 + 300;
        write.set(`${stats}:${second}`, String(n));
        write.pexpireat(`${stats}:${second}`, firstAt + 61_000);
      }
      await write.exec();
      const before = await serverTimeMs(client);
      const p = (await lanes.position(q, jobId))!;
      const after = await serverTimeMs(client);
      await client.del(...Object.keys(counts).map((o) => `${stats}:${sec + Number(o)}`));
      if (Math.floor(after / 1000) === sec) return { p, sec, before, after };
    }
    throw new Error('no read within one server second in 10 tries');
  }

  it('counts only the spell after a quiet stretch, from its first completion', async () => {
    const q = queues.queue();
    const last = await laneOf(q, 101);
    // Busy 50 to 30 s ago (100 a second), quiet for 20 s, then 10 a second for the last 3 seconds.
    const counts: Record<number, number> = { [-2]: 10, [-1]: 10, 0: 10 };
    for (let s = -50; s <= -30; s++) counts[s] = 100;
    const { p, sec, before, after } = await readWithBuckets(q, last, counts);
    expect(p.ahead).toBe(100);
    const firstAt = (sec - 2) * 1000 + 300;
    const estimate = (now: number) => (100 * ((now - firstAt) * 31) / 30) / 30;
    // ± 5 ms: the script replies with the span in whole ms (x ahead / count here).
    expect(p.estimatedWaitMs!).toBeGreaterThanOrEqual(Math.floor(estimate(before)) - 5);
    expect(p.estimatedWaitMs!).toBeLessThanOrEqual(Math.ceil(estimate(after)) + 5);
    // The last minute's average (2,130 completions over 60 s) would have said 100 / 35.5 per s = 2.8 s;
    // the spell says 100 / ~13 per s, about 8 s: the present rate, not the minute's.
    expect(p.estimatedWaitMs!).toBeGreaterThan(5_000);
  });

  it('a slow, steady stream with short gaps keeps its whole run; a stalled one falls back to the minute, a burst after a quiet stretch to its last completion', async () => {
    const q = queues.queue();
    const last = await laneOf(q, 11);
    // One completion every 3 s for the last 30 s: gaps of 2 empty seconds never end the spell.
    const steady: Record<number, number> = {};
    for (let s = -30; s <= 0; s += 3) steady[s] = 1;
    const a = await readWithBuckets(q, last, steady);
    const firstAt = (a.sec - 30) * 1000 + 300;
    expect(a.p.estimatedWaitMs!).toBeGreaterThanOrEqual(Math.floor((10 * ((a.before - firstAt) * 12) / 11) / 11) - 2);
    expect(a.p.estimatedWaitMs!).toBeLessThanOrEqual(Math.ceil((10 * ((a.after - firstAt) * 12) / 11) / 11) + 2);
    // Nothing in the last 5 s, 20 completions 40 to 21 s ago, and the job ready since before them (it
    // waited through the gap: stalled consumers): the minute counts, from its oldest to now.
    const stalled: Record<number, number> = {};
    for (let s = -40; s <= -21; s++) stalled[s] = 1;
    await client.hset(keysOf(q).job(last), 'at', `:${(await serverTimeMs(client)) - 45_000}`);
    const b = await readWithBuckets(q, last, stalled);
    const oldest = (b.sec - 40) * 1000 + 300;
    expect(b.p.estimatedWaitMs!).toBeGreaterThanOrEqual(Math.floor((10 * ((b.before - oldest) * 21) / 20) / 20) - 2);
    expect(b.p.estimatedWaitMs!).toBeLessThanOrEqual(Math.ceil((10 * ((b.after - oldest) * 21) / 20) / 20) + 2);
    // The same completions, the job ready only now (it came after the queue fell quiet): the quiet
    // stretch says nothing of how fast the queue serves, so the minute counts up to the end of the
    // last second with a completion, and the first estimates of a burst are not inflated by it.
    await client.hdel(keysOf(q).job(last), 'at');
    const c = await readWithBuckets(q, last, stalled);
    const busy = ((c.sec - 20) * 1000 - ((c.sec - 40) * 1000 + 300)) * 21 / 20;
    expect(c.p.estimatedWaitMs!).toBeGreaterThanOrEqual(Math.floor((10 * busy) / 20) - 2);
    expect(c.p.estimatedWaitMs!).toBeLessThanOrEqual(Math.ceil((10 * busy) / 20) + 2);
  });

  it('a young spell counts from when its job was ready (its first completion came a job\'s time after its work began), not before the previous spell ended', async () => {
    const q = queues.queue();
    const last = await laneOf(q, 11);
    const job = keysOf(q).job(last);
    // One completion, in the last second; the job ready 5 s before it: 10 ahead at 1 per ~6 s.
    const readyAt = async (offset: number) => client.hset(job, 'at', `:${(await serverTimeMs(client)) + offset}`);
    await readyAt(-5_000);
    const a = await readWithBuckets(q, last, { [-1]: 1 });
    const began = Number((await client.hget(job, 'at'))!.slice(1));
    expect(a.p.estimatedWaitMs!).toBeGreaterThanOrEqual(10 * (a.before - began) - 20);
    expect(a.p.estimatedWaitMs!).toBeLessThanOrEqual(10 * (a.after - began) + 20);
    // Ready 30 s ago, through an earlier spell that ended 19 s ago: counted from that spell's end.
    await readyAt(-30_000);
    const b = await readWithBuckets(q, last, { [-25]: 4, [-20]: 5, [-1]: 1 });
    const spellEnd = (b.sec - 19) * 1000;
    expect(b.p.estimatedWaitMs!).toBeGreaterThanOrEqual(10 * (b.before - spellEnd) - 20);
    expect(b.p.estimatedWaitMs!).toBeLessThanOrEqual(10 * (b.after - spellEnd) + 20);
  });

  it('after a quiet minute, a burst: the estimate for a job 100 ahead is within 2x of its actual wait on a steady consumer', async () => {
    // NOTE: a new queue holds no completion buckets, which is the server state a quiet minute leaves.
    const q = queues.queue();
    const ids = await lanes.submitMany(q, Array.from({ length: 600 }, (_, i) => ({ group: 'burst', payload: i })));
    let completed = 0;
    let stop = false;
    const doneAt = new Map<string, number>();
    const consumer = (async () => {
      while (!stop) {
        const job = await lanes.claim(q);
        if (!job) break;
        await new Promise((r) => setTimeout(r, 5));
        await lanes.complete(q, job.id, job.attempt);
        doneAt.set(job.id, Date.now());
        completed++;
      }
    })();
    try {
      while (completed < 60) await new Promise((r) => setTimeout(r, 10));
      const target = ids[Math.min(completed + 100, ids.length - 1)];
      const askedAt = Date.now();
      const p = (await lanes.position(q, target))!;
      const perSec = (await lanes.stats(q)).completedPerSec;
      expect(p.ahead).toBeGreaterThanOrEqual(80);
      expect(p.estimatedWaitMs).not.toBeNull();
      while (!doneAt.has(target)) await new Promise((r) => setTimeout(r, 5));
      const actual = doneAt.get(target)! - askedAt;
      expect(p.estimatedWaitMs!).toBeGreaterThanOrEqual(actual / 2);
      expect(p.estimatedWaitMs!).toBeLessThanOrEqual(actual * 2);
      // The last minute's average would have been far off: it spreads a second's work over 60.
      expect((p.ahead / perSec) * 1000).toBeGreaterThan(actual * 2);
    } finally {
      stop = true;
      await consumer;
    }
  });
});
