import IORedis from 'ioredis';
import { engineFixture, keysOf, waitFor, waitPastServerTime } from '../support/engine';
import { lanesOn } from '../support/lanes';
import { EchoMqError } from '../../lib/errors';
import { mintJobId } from '../../lib/ids/job-id';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import type { LanesService } from '../../lib/lanes.service';

describe('job(), keepCompletedMs and results, waitFor', () => {
  const engine = engineFixture({ maxAttempts: 1 });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  let keeping: LanesService;
  let keeping1s: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
    keeping = lanesOn(client, { maxAttempts: 1, keepCompletedMs: 60_000 });
    keeping1s = lanesOn(client, { maxAttempts: 1, keepCompletedMs: 1_000 });
  });

  it('job() follows a job through scheduled, pending, active, completed (kept) and shows nothing when not kept', async () => {
    const q = queues.queue();
    const id = await keeping.submit(q, 'a', { n: 1 }, { delayMs: 60_000, maxAttempts: 4 });
    const scheduled = await keeping.job(q, id);
    expect(scheduled).toMatchObject({ id, queue: q, group: 'a', payload: { n: 1 }, state: 'scheduled', attempt: 0, maxAttempts: 4 });
    expect(scheduled!.dueAt).toBeGreaterThan(scheduled!.submittedAt + 59_000);

    const now = await keeping.submit(q, 'a', { n: 2 });
    expect(await keeping.job(q, now)).toMatchObject({ state: 'pending', attempt: 0, maxAttempts: 1 });
    const held = (await keeping.claim(q))!;
    const active = await keeping.job(q, now);
    expect(active).toMatchObject({ state: 'active', attempt: 1, leaseUntil: held.leaseUntil });
    expect(await keeping.complete(q, now, held.attempt, { score: 42 })).toBe(true);
    const done = await keeping.job(q, now);
    expect(done).toMatchObject({ state: 'completed', result: { score: 42 }, attempt: 1 });
    expect(done!.finishedAt).toBeGreaterThanOrEqual(done!.submittedAt);
    const ttl = await client.pttl(keysOf(q).job(now));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // Without keepCompletedMs the row is gone: null, as for an id never submitted.
    const gone = await lanes.submit(q, 'b', 1);
    const h = (await lanes.claim(q))!;
    expect(h.id).toBe(gone);
    expect(await lanes.complete(q, gone, h.attempt, 'ignored')).toBe(true);
    expect(await lanes.job(q, gone)).toBeNull();
    expect(await lanes.job(q, mintJobId())).toBeNull();
  });

  it('submittedAt is the submit time, also for a jobId the caller minted long before', async () => {
    const q = queues.queue();
    const early = mintJobId();
    const late = mintJobId();
    await new Promise((r) => setTimeout(r, 400));
    const serverMs = async () => {
      const [s, us] = (await client.time()) as unknown as [string, string];
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    const before = await serverMs();
    await lanes.submit(q, 'a', { n: 1 }, { jobId: early });
    await lanes.submitMany(q, [{ group: 'b', payload: { n: 2 }, opts: { jobId: late } }]);
    const minted = await lanes.submit(q, 'c', { n: 3 });
    const after = await serverMs();
    for (const id of [early, late, minted]) {
      const seen = await lanes.job(q, id);
      expect([id, seen!.submittedAt >= before - 5 && seen!.submittedAt <= after + 5]).toEqual([id, true]);
    }
    // The claim paths read it from the row too (claimMany and wclaim serve through the same code).
    const { jobs } = await lanes.claimMany(q, 3);
    expect(jobs.map((j) => j.id).sort()).toEqual([early, late, minted].sort());
    for (const j of jobs) expect([j.id, j.submittedAt]).toEqual([j.id, (await lanes.job(q, j.id))!.submittedAt]);
    // Only a caller-given id's row carries `at`: a minted id's submit time is its mint time.
    expect(await client.hexists(keysOf(q).job(minted), 'at')).toBe(0);
  });

  it('a kept completion answers a submit with the same jobId or dedupKey with its id, and expires with its dedup key', async () => {
    const q = queues.queue();
    const shortKeep = lanesOn(client, { keepCompletedMs: 150 });
    const own = mintJobId();
    expect(await shortKeep.submit(q, 'a', 1, { jobId: own })).toBe(own);
    const byKey = await shortKeep.submit(q, 'a', 2, { dedupKey: 'k1' });
    for (let i = 0; i < 2; i++) {
      const j = (await shortKeep.claim(q))!;
      expect(await shortKeep.complete(q, j.id, j.attempt, i)).toBe(true);
    }
    expect(await shortKeep.submit(q, 'a', 'again', { jobId: own })).toBe(own);
    expect(await shortKeep.submit(q, 'a', 'again', { dedupKey: 'k1' })).toBe(byKey);
    expect(await shortKeep.claim(q)).toBeNull();
    expect((await shortKeep.stats(q)).totals.submitted).toBe(2);
    await waitFor('the kept rows to expire', async () => (await client.exists(keysOf(q).job(own), keysOf(q).job(byKey))) === 0, 3_000);
    // Nothing of them is left: the dedup key went with its row (a field of the dedup hash would stay for good).
    expect(await client.exists(keysOf(q).dedup, keysOf(q).keptDedup('k1'))).toBe(0);
    expect(await shortKeep.job(q, own)).toBeNull();
    expect(await shortKeep.submit(q, 'a', 'new life', { jobId: own })).toBe(own);
    expect((await shortKeep.job(q, own))!.state).toBe('pending');
    expect(await shortKeep.submit(q, 'a', 'new life', { dedupKey: 'k1' })).not.toBe(byKey);
  });

  it('a dead job has finishedAt and lastError', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', 1);
    const j = (await lanes.claim(q))!;
    expect(await lanes.fail(q, id, j.attempt, new Error('boom'))).toBe('dead');
    const info = await lanes.job(q, id);
    expect(info).toMatchObject({ state: 'dead', lastError: 'boom', attempt: 1 });
    expect(info!.finishedAt).toBeGreaterThan(0);
  });

  it('keepCompletedMs is checked at boot', () => {
    for (const bad of [-1, 1.5, '10', 30 * 24 * 3600 * 1000 + 1]) {
      expect(() => resolveEchoMqOptions({ keepCompletedMs: bad as number })).toThrow(expect.objectContaining({ argument: 'keepCompletedMs' }));
    }
  });

  describe('waitFor', () => {
    it('resolves with the completed job (result included) and with a kept one at once', async () => {
      const q = queues.queue();
      const id = await lanes.submit(q, 'a', { x: 1 });
      const waiting = lanes.waitFor(q, id, { timeoutMs: 5_000 });
      const j = (await lanes.claim(q))!;
      await lanes.complete(q, id, j.attempt, { ok: true });
      expect(await waiting).toMatchObject({ id, state: 'completed', result: { ok: true }, payload: { x: 1 }, attempt: 1 });

      const kept = await keeping.submit(q, 'a', 2);
      const k = (await keeping.claim(q))!;
      await keeping.complete(q, kept, k.attempt, 7);
      expect(await keeping.waitFor(q, kept, { timeoutMs: 1_000 })).toMatchObject({ state: 'completed', result: 7 });
    });

    it('resolves with a dead job and its lastError (fail and reap)', async () => {
      const q = queues.queue();
      const failed = await lanes.submit(q, 'a', 1);
      const w1 = lanes.waitFor(q, failed, { timeoutMs: 5_000 });
      const j = (await lanes.claim(q))!;
      await lanes.fail(q, failed, j.attempt, 'nope');
      expect(await w1).toMatchObject({ id: failed, state: 'dead', lastError: 'nope' });

      const expired = await lanes.submit(q, 'a', 2);
      const w2 = lanes.waitFor(q, expired, { timeoutMs: 5_000 });
      const e = (await lanes.claim(q, { leaseMs: 30 }))!;
      await waitPastServerTime(client, e.leaseUntil);
      expect(await lanes.reap(q)).toBe(1);
      expect(await w2).toMatchObject({ id: expired, state: 'dead', lastError: 'lease expired on attempt 1' });
    });

    it('never misses a completion sent right after the call (its outcome is kept for waiters, not its row)', async () => {
      const q = queues.queue();
      for (let round = 0; round < 20; round++) {
        const id = await lanes.submit(q, 'a', round);
        const j = (await lanes.claim(q))!;
        const waiting = lanes.waitFor(q, id, { timeoutMs: 5_000 });
        await lanes.complete(q, id, j.attempt, round);
        expect(await waiting).toMatchObject({ id, state: 'completed', result: round });
      }
    });

    it('a waited job is kept no longer than any other: without keepCompletedMs its row goes at once, its id and dedupKey are free again', async () => {
      const q = queues.queue();
      const own = mintJobId();
      const id = await lanes.submit(q, 'a', 1, { jobId: own, dedupKey: 'once' });
      const waiting = lanes.waitFor(q, id, { timeoutMs: 5_000 });
      await new Promise((r) => setTimeout(r, 50)); // the subscription is active: the outcome comes as a message
      const j = (await lanes.claim(q))!;
      await lanes.complete(q, id, j.attempt, 'R');
      expect(await waiting).toMatchObject({ id, state: 'completed', result: 'R' });
      expect(await lanes.job(q, id)).toBeNull();
      expect(await lanes.waitFor(q, id, { timeoutMs: 1_000 })).toBeNull();
      expect(await lanes.submit(q, 'a', 2, { jobId: own })).toBe(own);
      expect(await lanes.job(q, own)).toMatchObject({ state: 'pending', payload: 2 });
      const again = await lanes.submit(q, 'a', 3, { dedupKey: 'once' });
      expect(again).not.toBe(own);

      // Kept 1 s: a waiter does not stretch that.
      const q1 = queues.queue();
      const kept = await keeping1s.submit(q1, 'b', 4);
      const w = keeping1s.waitFor(q1, kept, { timeoutMs: 5_000 });
      await new Promise((r) => setTimeout(r, 50));
      const k = (await keeping1s.claim(q1))!;
      await keeping1s.complete(q1, kept, k.attempt, 5);
      expect(await w).toMatchObject({ state: 'completed', result: 5 });
      const ttl = await client.pttl(keysOf(q1).job(kept));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1_000);
    });

    it('times out with TIMEOUT, and says null for an id the queue does not hold', async () => {
      const q = queues.queue();
      const id = await lanes.submit(q, 'a', 1);
      const err = await lanes.waitFor(q, id, { timeoutMs: 50 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EchoMqError);
      expect((err as EchoMqError).code).toBe('TIMEOUT');
      expect(await lanes.waitFor(q, mintJobId(), { timeoutMs: 1_000 })).toBeNull();
    });

    it('200 concurrent waiters, each resolved by its own job, with no command sent while they wait', async () => {
      const q = queues.queue();
      const ids = await lanes.submitMany(q, Array.from({ length: 200 }, (_, i) => ({ group: `g${i % 10}`, payload: i })));
      const waiterClient = engine.server.client();
      // NOTE: the waiter's address is read before MONITOR starts, so that CLIENT INFO is not seen.
      const info = String(await waiterClient.client('INFO'));
      const addr = /addr=(\S+)/.exec(info)![1];
      const monitorBase = engine.server.client();
      const monitor = await monitorBase.monitor();
      try {
        const waiter = lanesOn(waiterClient);
        const seen: string[] = [];
        monitor.on('monitor', (_time: string, args: string[], source: string) => {
          // NOTE: a process reads a queue's shard count on its first call there and about once a
          // second after (see shards/shard-counts.ts): not a command of the waits.
          if (['hget', 'hmget'].includes(String(args[0]).toLowerCase()) && String(args[1]).endsWith(':shards')) return;
          if (source === addr) seen.push(String(args[0]).toLowerCase());
        });
        const results = ids.map((id) => waiter.waitFor(q, id, { timeoutMs: 20_000 }));
        // Each waiter's watchJob call and its read once subscribed; then a wait that times out
        // proves that time passed without a command.
        await waitFor('the 200 watch calls and reads', async () => seen.length >= 400, 10_000);
        const countBefore = seen.length;
        const quiet = await waiter.waitFor(q, ids[0], { timeoutMs: 300 }).catch((e: unknown) => e);
        expect((quiet as EchoMqError).code).toBe('TIMEOUT');
        expect(seen.length).toBe(countBefore + 2);

        for (;;) {
          const batch = await lanes.claimMany(q, 50);
          if (batch.jobs.length === 0) break;
          await lanes.completeMany(q, batch.jobs.map((j) => ({ jobId: j.id, token: j.attempt, result: { for: j.id } })));
        }
        const infos = await Promise.all(results);
        infos.forEach((r, i) => expect(r).toMatchObject({ id: ids[i], state: 'completed', result: { for: ids[i] }, payload: i }));
        // 2 scripts per wait (FCALL; or EVALSHA, and EVAL once per script after NOSCRIPT) and nothing else.
        expect(seen.length).toBe(countBefore + 2);
        expect(seen.filter((c) => !['fcall', 'fcall_ro', 'evalsha', 'eval'].includes(c))).toEqual([]);
        expect(seen.length).toBeLessThanOrEqual(404);
      } finally {
        monitor.disconnect();
        await monitorBase.quit();
        await waiterClient.quit();
      }
    });
  });
});
