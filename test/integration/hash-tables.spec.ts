import { engineFixture, keysOf } from '../support/engine';
import { FUNCTIONS_ENV } from '../../lib/scripts/script-runner';

/**
 * Hashes that gain a field a lane or a job (the active and parked counts, the lane settings, the
 * dedup keys) are read and raised on hot paths, and a listpack is searched from its start: the
 * script that grows one past 64 fields turns it into a hash table (see lua/includes/grownHash.lua),
 * without ever leaving a field there that is not the hash's own.
 */
describe('hashes that gain a field a lane or a job become hash tables', () => {
  const engine = engineFixture();
  const { queues } = engine;

  const fill = async (q: string, n: number): Promise<void> => {
    await engine.lanes.submitMany(q, Array.from({ length: n }, (_, i) => ({ group: `lane-${i}`, payload: { i } })));
  };
  const encoding = async (key: string): Promise<string> => String(await engine.client.call('OBJECT', 'ENCODING', key));
  const onlyLanes = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`lane-${i}`, '1']));

  it('a claim that leaves many lanes active makes the hash a hash table, and it holds only the lanes', async () => {
    const q = queues.queue();
    await fill(q, 100);
    const { jobs } = await engine.lanes.claimMany(q, 100);
    expect(jobs).toHaveLength(100);
    expect(await encoding(keysOf(q).gactive)).toBe('hashtable');
    expect(await engine.client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(100));
    expect(await engine.lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })))).toEqual(jobs.map(() => true));
    expect(await engine.client.exists(keysOf(q).gactive)).toBe(0);
  });

  it('a few active lanes stay as the server keeps a small hash', async () => {
    const q = queues.queue();
    await fill(q, 10);
    await engine.lanes.claimMany(q, 10);
    expect(await encoding(keysOf(q).gactive)).not.toBe('hashtable');
    expect(await engine.client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(10));
  });

  // NOTE: the count of a hash's new fields outlives a call only in the function library; under EVALSHA
  // only a call that adds many fields turns the hash.
  const asFunctions = async (): Promise<boolean> =>
    process.env[FUNCTIONS_ENV] !== 'off' && (await engine.client.call('FUNCTION', 'LIST').then(() => true, () => false));

  it('one-job claims do it too where the scripts run as functions', async () => {
    const functions = await asFunctions();
    const q = queues.queue();
    await fill(q, 100);
    for (let i = 0; i < 100; i++) expect(await engine.lanes.claim(q)).not.toBeNull();
    expect(await engine.client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(100));
    if (functions) expect(await encoding(keysOf(q).gactive)).toBe('hashtable');
  });

  it('the dedup keys and the parked counts (a submitMany), the lane settings (one call a lane, as functions)', async () => {
    const functions = await asFunctions();
    const q = queues.queue();
    const k = keysOf(q);
    await engine.lanes.submitMany(q, Array.from({ length: 100 }, (_, i) => ({ group: `lane-${i}`, payload: { i }, opts: { dedupKey: `d-${i}` } })));
    await engine.lanes.submitMany(q, Array.from({ length: 100 }, (_, i) => ({ group: `lane-${i}`, payload: { i }, opts: { delayMs: 60_000 } })));
    for (let i = 0; i < 100; i++) {
      await engine.lanes.weight(q, `lane-${i}`, 2);
      await engine.lanes.limit(q, `lane-${i}`, 5);
      await engine.lanes.rate(q, `lane-${i}`, { max: 10, perMs: 1_000 });
    }
    for (const key of [k.dedup, k.parked, k.weight, k.limit, k.rate]) {
      if (functions || key === k.dedup || key === k.parked) expect([key, await encoding(key)]).toEqual([key, 'hashtable']);
      expect(await engine.client.hlen(key)).toBe(100);
      expect((await engine.client.hkeys(key)).every((f) => /^(lane|d)-\d+$/.test(f))).toBe(true);
    }
    expect(await engine.client.hget(k.dedup, 'd-7')).toMatch(/./);
    expect(await engine.client.hget(k.parked, 'lane-7')).toBe('1');
    expect(await engine.client.hget(k.weight, 'lane-7')).toBe('2');
  });
});
