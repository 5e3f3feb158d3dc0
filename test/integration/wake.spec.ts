import { engineFixture, keysOf } from '../support/engine';

/** Tokens on the wake list now; empties it so the next step starts from none. */
async function takeTokens(client: import('ioredis').default, queue: string): Promise<number> {
  const k = keysOf(queue);
  const n = await client.llen(k.wake);
  await client.del(k.wake);
  return n;
}

describe('wake tokens for new due times', () => {
  const fx = engineFixture({ backoff: { delayMs: 60_000 } });

  it('a delayed submit wakes idle consumers only when it is due before everything scheduled so far', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submit(q, 'a', {}, { delayMs: 10_000 });
    expect(await takeTokens(fx.client, q)).toBe(1);
    await fx.lanes.submit(q, 'a', {}, { delayMs: 20_000 });
    expect(await takeTokens(fx.client, q)).toBe(0);
    await fx.lanes.submitMany(q, [{ group: 'b', payload: 1, opts: { delayMs: 5_000 } }, { group: 'b', payload: 2, opts: { delayMs: 30_000 } }]);
    expect(await takeTokens(fx.client, q)).toBe(1);
    const { dueInMs } = await fx.lanes.claimMany(q, 1);
    expect(dueInMs).toBeGreaterThan(4_000);
    expect(dueInMs).toBeLessThanOrEqual(5_000);
  });

  it('a retry with backoff wakes idle consumers when its due time is the earliest', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submit(q, 'a', {});
    await fx.lanes.submit(q, 'a', {}, { delayMs: 120_000 });
    await takeTokens(fx.client, q);
    const job = (await fx.lanes.claim(q))!;
    expect(await fx.lanes.fail(q, job.id, job.attempt, 'again')).toBe('retry');
    expect(await takeTokens(fx.client, q)).toBe(1);
    const { dueInMs } = await fx.lanes.claimMany(q, 1);
    expect(dueInMs).toBeGreaterThan(59_000);
    expect(dueInMs).toBeLessThanOrEqual(60_000);
  });
});
