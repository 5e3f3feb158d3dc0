import IORedis from 'ioredis';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { EchoMqError } from '../../lib/errors';
import { LanesService } from '../../lib/lanes.service';
import { lanesOn, snapshot, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { report } from './support/wait';

/** A logger that keeps what it is told. */
function capturingLogger() {
  const lines: { level: string; message: string }[] = [];
  const keep = (level: string) => (message: unknown) => void lines.push({ level, message: String(message) });
  return { lines, logger: { log: keep('log'), warn: keep('warn'), error: keep('error') } };
}

async function memory(client: IORedis): Promise<{ used: number; max: number }> {
  const info = await client.info('memory');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1]);
  return { used: field('used_memory'), max: field('maxmemory') };
}

describe('faults: the server at maxmemory', () => {
  let server: TestRedisServer;
  let client: IORedis;
  let lanes: LanesService;

  beforeAll(async () => {
    server = await TestRedisServer.start(['--maxmemory', '2mb', '--maxmemory-policy', 'noeviction']);
    client = server.client();
    lanes = lanesOn(client);
  });
  afterAll(async () => {
    await client.quit();
    await server.stop();
  });

  it('refuses a submit with a clear EchoMqError, writes nothing, and still lets consumers drain', async () => {
    const q = testQueue();
    const payload = { blob: 'x'.repeat(20_000) };
    const admitted: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 500 && !refusal; i++) {
      try {
        admitted.push(await lanes.submit(q, `g${i % 3}`, payload));
      } catch (err) {
        refusal = err;
      }
    }
    expect(refusal).toBeInstanceOf(EchoMqError);
    expect((refusal as EchoMqError).code).toBe('OUT_OF_MEMORY');
    const message = (refusal as Error).message;
    expect(message).toMatch(/out of memory/);
    expect(message).toMatch(/maxmemory/);
    expect(message).toMatch(/noeviction/);
    expect(message).toContain(q);

    // NOTE: a lower ceiling than what is in use puts the server over it even between commands.
    const { used } = await memory(client);
    await client.config('SET', 'maxmemory', String(used - 256 * 1024));
    const over = await memory(client);
    expect(over.used).toBeGreaterThan(over.max);

    const before = await snapshot(client, q);
    await expect(lanes.submit(q, 'g0', { n: 1 })).rejects.toThrow(/out of memory/);
    await expect(lanes.submit(q, 'fresh-lane', { n: 1 })).rejects.toThrow(EchoMqError);
    await expect(lanes.submitMany(q, [{ group: 'g1', payload: 1 }, { group: 'g9', payload: 2 }])).rejects.toThrow(/out of memory/);
    await expect(lanes.submit(q, 'g0', { n: 1 }, { delayMs: 1_000 })).rejects.toThrow(/out of memory/);
    expect(await snapshot(client, q)).toEqual(before);

    // Over maxmemory, the consumers can still take work and acknowledge it: that is what frees memory.
    let drained = 0;
    for (;;) {
      const job = await lanes.claim(q, { leaseMs: 10_000 });
      if (!job) break;
      expect(await lanes.extend(q, job.id, job.attempt, 10_000)).toBe(true);
      expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
      drained += 1;
    }
    expect(drained).toBe(admitted.length);
    expect(await lanes.lanes(q)).toEqual([]);

    // NOTE: room again, above what the drained server holds: about 1.9 MB of 2, the scripts' function
    // library (about 145 KB) among it, so 2 MB would leave the tests below at the limit.
    await client.config('SET', 'maxmemory', '3mb');
    expect(await lanes.submit(q, 'g0', { n: 2 })).toMatch(/^JOB/);
    report(`maxmemory 2mb, noeviction: ${admitted.length} jobs of 20 KB admitted, then submit refused `
      + `("…${message.slice(message.indexOf('was refused'), message.indexOf(' Nothing'))}"), nothing written; drained ${drained} over maxmemory`);
  });

  describe('onModuleInit', () => {
    it('warns when maxmemory-policy is not noeviction', async () => {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      try {
        const { lines, logger } = capturingLogger();
        await new LanesService(client, resolveEchoMqOptions({ logger })).onModuleInit();
        const warnings = lines.filter((l) => l.level === 'warn');
        expect(warnings).toHaveLength(1);
        expect(warnings[0].message).toMatch(/allkeys-lru/);
        expect(warnings[0].message).toMatch(/noeviction/);
      } finally {
        await client.config('SET', 'maxmemory-policy', 'noeviction');
      }
    });

    it('says nothing of the policy when it is noeviction', async () => {
      const { lines, logger } = capturingLogger();
      await new LanesService(client, resolveEchoMqOptions({ logger })).onModuleInit();
      expect(lines).toEqual([]);
    });

    it('logs that it could not check when the server refuses CONFIG', async () => {
      const locked = await TestRedisServer.start(['--rename-command', 'CONFIG', '']);
      const c = locked.client();
      try {
        const { lines, logger } = capturingLogger();
        await new LanesService(c, resolveEchoMqOptions({ logger })).onModuleInit();
        expect(lines).toEqual([{ level: 'log', message: expect.stringMatching(/maxmemory-policy.*noeviction/) }]);
      } finally {
        await c.quit();
        await locked.stop();
      }
    });
  });
});
