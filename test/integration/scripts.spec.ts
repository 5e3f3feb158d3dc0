import { createHash } from 'crypto';
import IORedis from 'ioredis';
import { snapshot } from '../support/lanes';
import { engineFixture, keysOf, waitPastServerTime } from '../support/engine';
import { EchoMqError } from '../../lib/errors';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { loadScripts } from '../../lib/scripts/lua-loader';
import type { LanesService } from '../../lib/lanes.service';

describe('scripts on the server: NOSCRIPT, server-side checks, OOM', () => {
  const engine = engineFixture({ maxAttempts: 1, backoff: { delayMs: 0 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('NOSCRIPT: after SCRIPT FLUSH every operation still works', async () => {
    const q = queues.queue();
    const shas = loadScripts().map((s) => createHash('sha1').update(s.lua).digest('hex'));
    const cached = async () => ((await client.script('EXISTS', ...shas)) as number[]).filter((x) => x === 1).length;
    const step = async <T>(op: () => Promise<T>, runsScript = true): Promise<T> => {
      await client.script('FLUSH');
      expect(await cached()).toBe(0);
      const result = await op();
      if (runsScript) expect(await cached()).toBeGreaterThan(0);
      return result;
    };
    const a = await step(() => lanes.submit(q, 'a', { n: 1 }));
    const [b] = await step(() => lanes.submitMany(q, [{ group: 'b', payload: { n: 2 } }, { group: 'a', payload: { n: 3 } }]));
    await step(() => lanes.weight(q, 'a', 2));
    await step(() => lanes.limit(q, 'a', 5));
    await step(() => lanes.pause(q, 'b'));
    expect(await step(() => lanes.lane(q, 'b'))).toMatchObject({ paused: true, pending: 1 });
    await step(() => lanes.resume(q, 'b'));
    const turn = await step(() => lanes.wclaim(q));
    expect(turn.map((j) => j.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(await step(() => lanes.extend(q, a, turn[0].attempt, 10_000))).toBe(true);
    expect(await step(() => lanes.complete(q, a, turn[0].attempt))).toBe(true);
    expect(await step(() => lanes.release(q, turn[1].id, turn[1].attempt))).toBe(true);
    const many = await step(() => lanes.claimMany(q, 2, { leaseMs: 10 }));
    expect(many.jobs.map((j) => j.id).sort()).toEqual([b, turn[1].id].sort());
    await waitPastServerTime(client, many.jobs[0].leaseUntil);
    expect(await step(() => lanes.reap(q))).toBe(2);
    expect(await step(() => lanes.dead(q))).toHaveLength(2);
    expect(await step(() => lanes.retryDead(q, b))).toBe(true);
    const job = await step(() => lanes.claim(q));
    expect(job!.id).toBe(b);
    expect(await step(() => lanes.fail(q, b, job!.attempt, 'x'))).toBe('dead');
    await step(() => lanes.submit(q, 'c', {}, { delayMs: 1 }));
    await waitPastServerTime(client, Number(await client.zscore(keysOf(q).schedule, (await client.zrange(keysOf(q).schedule, 0, 0))[0])));
    expect(await step(() => lanes.promote(q))).toBe(1);
    expect((await step(() => lanes.lanes(q))).map((l) => l.group)).toEqual(['a', 'c']);
    expect(await step(() => lanes.stats(q), false)).toMatchObject({ totals: { completed: 1, retried: 0, dead: 3 }, paused: false });
  });

  it('a script refuses arguments that do not match its keys, as an EchoMqError, writing nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', {});
    const scripts = new LaneScripts(client);
    const k = keysOf(q);
    const other = keysOf(queues.queue());
    const before = await snapshot(client, q);
    const refused: [string, () => Promise<unknown>][] = [
      ['claim lease 0', () => scripts.claim(k, 0, 1, 10)],
      ['claim steps 0', () => scripts.claim(k, 1000, 0, 10)],
      ['wclaim negative max', () => scripts.wclaim(k, 1000, -1, 10)],
      ['wclaimMany turns 0', () => scripts.wclaimMany(k, 1000, 0, 0, 0, 10)],
      ['wclaimMany turns 1001', () => scripts.wclaimMany(k, 1000, 1001, 0, 0, 10)],
      ['wclaimMany untilJobs 1001', () => scripts.wclaimMany(k, 1000, 1, 0, 1001, 10)],
      ['limit 1.5', () => scripts.limit(k, 'a', 1.5)],
      ['limit 0', () => scripts.limit(k, 'a', 0)],
      ['weight 0', () => scripts.weight(k, 'a', 0)],
      ['weight 2.5', () => scripts.weight(k, 'a', 2.5)],
      ['extend lease 0', () => scripts.extend(k, 'JOB00000000000', 1, 0)],
      ['reap max 0', () => scripts.reap(k, 1, 0)],
      ['promote max 0', () => scripts.promote(k, 0)],
      ['fail factor 0.5', () => scripts.fail(k, 'JOB00000000000', 1, 'e', { maxAttempts: 1, delayMs: 0, factor: 0.5, maxDelayMs: 0 })],
      ['lanes max 0', () => scripts.lanes(k, 0)],
      ['dead count 0', () => scripts.dead(k, 0, 0)],
      ['submit delay -1', () => scripts.submit(k, { id: 'JOB00000000001', group: 'a', payload: '1', dedupKey: '', delayMs: -1, maxAttempts: 0, own: false })],
      ['submitMany bad item', () => scripts.submitMany(k, [
        { id: 'JOB00000000002', group: 'a', payload: '1', dedupKey: '', delayMs: 0, maxAttempts: 0, own: false },
        { id: 'JOB00000000003', group: 'a', payload: '1', dedupKey: '', delayMs: -5, maxAttempts: 0, own: false },
      ])],
      ['cross-queue base', () => scripts.claim({ ...k, base: other.base } as never, 1000, 1, 10)],
    ];
    for (const [what, call] of refused) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect({ what, isEchoMq: error instanceof EchoMqError }).toEqual({ what, isEchoMq: true });
      expect((error as Error).message).toMatch(/failed on the server: .*echomq:/);
    }
    expect(await snapshot(client, q)).toEqual(before);
  });

  it('a server out of memory refuses a write with a clear EchoMqError and writes nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', {});
    const before = await snapshot(client, q);
    await client.config('SET', 'maxmemory', '1');
    try {
      const error = await lanes.submit(q, 'a', { more: true }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(EchoMqError);
      expect((error as EchoMqError).message).toMatch(/out of memory/);
      expect((error as EchoMqError).queue).toBe(q);
    } finally {
      await client.config('SET', 'maxmemory', '0');
    }
    expect(await snapshot(client, q)).toEqual(before);
  });
});
