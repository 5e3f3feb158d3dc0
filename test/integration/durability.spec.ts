import type IORedis from 'ioredis';
import { Cluster } from 'ioredis';
import { EchoMqError, mintJobId } from '../../lib';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { keysOf } from '../support/engine';
import { lanesOn, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';

/** Waits until `replica` replicates `primary` with its link up (ROLE, not INFO). */
async function linked(replica: IORedis, primaryPort: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const role = (await replica.call('ROLE')) as unknown[];
    if (role[0] === 'slave' && Number(role[2]) === primaryPort && role[3] === 'connected') return;
    if (Date.now() > deadline) throw new Error(`replica not linked: ROLE ${JSON.stringify(role)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `durability: { replicas, timeoutMs }`: every acknowledged write is on the replica by the time the
 * call resolves; short of enough replicas the call rejects with NOT_REPLICATED and the write stands.
 */
describe('durability: replicated writes (WAIT)', () => {
  let primary: TestRedisServer;
  let replica: TestRedisServer;
  let client: IORedis;
  let onReplica: IORedis;

  beforeAll(async () => {
    primary = await TestRedisServer.start(['--appendonly', 'yes', '--repl-diskless-sync-delay', '0']);
    replica = await TestRedisServer.start(['--replicaof', '127.0.0.1', String(primary.port)]);
    client = primary.client();
    onReplica = replica.client();
    await linked(onReplica, primary.port);
  });
  afterAll(async () => {
    await client.quit();
    await onReplica.quit();
    await replica.stop();
    await primary.stop();
  });

  it('submit, submitMany, complete, fail and retryDead resolve only once the replica holds the write', async () => {
    const lanes = lanesOn(client, { durability: { replicas: 1, timeoutMs: 2_000 }, backoff: { delayMs: 0 } });
    const q = testQueue();
    const k = keysOf(q);
    const id = await lanes.submit(q, 'a', { n: 1 }, { maxAttempts: 1 });
    expect(await onReplica.hget(k.job(id), 'state')).toBe('pending');
    const [b, c] = await lanes.submitMany(q, [{ group: 'b', payload: 2 }, { group: 'c', payload: 3 }]);
    expect(await onReplica.exists(k.job(b), k.job(c))).toBe(2);
    const first = (await lanes.claim(q))!;
    expect(first.id).toBe(id);
    expect(await lanes.fail(q, first.id, first.attempt, new Error('boom'))).toBe('dead');
    expect(await onReplica.hget(k.job(id), 'state')).toBe('dead');
    expect(await lanes.retryDead(q, id)).toBe(true);
    expect(await onReplica.hget(k.job(id), 'state')).toBe('pending');
    const again = (await lanes.claimMany(q, 3)).jobs;
    expect(await lanes.complete(q, again[0].id, again[0].attempt)).toBe(true);
    expect(await onReplica.exists(k.job(again[0].id))).toBe(0);
    const rest = again.slice(1).map((j) => ({ jobId: j.id, token: j.attempt }));
    expect(await lanes.completeMany(q, rest)).toEqual([true, true]);
    expect(await onReplica.exists(...again.map((j) => k.job(j.id)))).toBe(0);
  });

  it('more replicas than there are: NOT_REPLICATED after timeoutMs, the write stands, a retry with its jobId admits nothing twice', async () => {
    const lanes = lanesOn(client, { durability: { replicas: 2, timeoutMs: 150 } });
    const q = testQueue();
    const jobId = mintJobId();
    const started = Date.now();
    const err = await lanes.submit(q, 'g', 1, { jobId }).then(() => undefined, (e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(err).toBeInstanceOf(EchoMqError);
    expect((err as EchoMqError).code).toBe('NOT_REPLICATED');
    expect((err as Error).message).toMatch(/1 of 2 confirmed/);
    expect(await client.hget(keysOf(q).job(jobId), 'state')).toBe('pending');
    await expect(lanes.submit(q, 'g', 1, { jobId })).rejects.toMatchObject({ code: 'NOT_REPLICATED' });
    expect(await client.zcard(keysOf(q).lane('g'))).toBe(1);
    // A call that writes nothing has nothing to wait for: it answers at once, replicas or not. One
    // that waited would take the whole 150 ms, so each call is timed on its own against that.
    const timed = async <T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const at = Date.now();
      const value = await call();
      return { value, ms: Date.now() - at };
    };
    const stale = [
      await timed(() => lanes.complete(q, jobId, 7)),
      await timed(() => lanes.completeMany(q, [{ jobId, token: 7 }])),
      await timed(() => lanes.fail(q, jobId, 7, 'x')),
      await timed(() => lanes.retryDead(q, jobId)),
    ];
    expect(stale.map((r) => r.value)).toEqual([false, [false], 'stale', false]);
    for (const { ms } of stale) expect(ms).toBeLessThan(150);
  });

  it('bad durability options are refused, naming the field', () => {
    expect(() => resolveEchoMqOptions({ durability: { replicas: 0 } })).toThrow(/durability\.replicas/);
    expect(() => resolveEchoMqOptions({ durability: { replicas: 1, timeoutMs: 0 } })).toThrow(/durability\.timeoutMs/);
    expect(() => resolveEchoMqOptions({ durability: { replicas: 1, fsync: 'yes' as unknown as boolean } })).toThrow(/durability\.fsync/);
  });

  it('on a Cluster client whose slots are not known, an acknowledged write is not confirmed (NOT_REPLICATED), never confirmed on a guess', async () => {
    // NOTE: each WAIT goes to the master of the written shard's slot, on the Cluster's own connection
    // to it (test/faults/cluster-failover.spec.ts drives it through a failover); with no slot map there is none.
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    try {
      const lanes = lanesOn(cluster as unknown as IORedis, { durability: { replicas: 1, timeoutMs: 100 } });
      const ctx = (lanes as unknown as { ctx: { durability: { confirm: (...a: unknown[]) => Promise<unknown> } } }).ctx;
      await expect(ctx.durability.confirm('submit', 'q', 'id', true, keysOf('q'))).rejects.toMatchObject({ code: 'NOT_REPLICATED' });
    } finally {
      cluster.disconnect();
    }
  });

  it('durability.fsync: waits for the AOF fsync where the server has WAITAOF; refused as MISCONFIGURED where it has not', async () => {
    const hasWaitAof = ((await client.call('COMMAND', 'INFO', 'WAITAOF')) as unknown[])[0] != null;
    const lanes = lanesOn(client, { durability: { replicas: 1, timeoutMs: 1_000, fsync: true } });
    const q = testQueue();
    if (hasWaitAof) {
      const id = await lanes.submit(q, 'g', 1);
      expect(await onReplica.exists(keysOf(q).job(id))).toBe(1);
    } else {
      process.stdout.write('[durability] WAITAOF test skipped: this server has no WAITAOF command (Redis 7.2+, Valkey 8+); checked that fsync: true is refused instead\n');
      await expect(lanes.submit(q, 'g', 1)).rejects.toMatchObject({ code: 'MISCONFIGURED', argument: 'durability.fsync' });
    }
  });
});
