import IORedis from 'ioredis';
import { engineFixture, keysOf } from '../support/engine';
import { FUNCTIONS_ENV } from '../../lib/scripts/script-runner';
import type { LanesService } from '../../lib/lanes.service';

/**
 * The lanes' active counts (emq:{q}:gactive) are raised on every claim. A listpack is searched from
 * its start, so a claim turns the hash into a hash table once it holds many lanes (see
 * lua/includes/hashTable.lua), without ever leaving a field there that is not a lane.
 */
describe('claim: the active counts hash', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  const fill = async (q: string, n: number): Promise<void> => {
    await lanes.submitMany(q, Array.from({ length: n }, (_, i) => ({ group: `lane-${i}`, payload: { i } })));
  };
  const encoding = async (key: string): Promise<string> => String(await client.call('OBJECT', 'ENCODING', key));
  const onlyLanes = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`lane-${i}`, '1']));

  it('a claim that leaves many lanes active makes the hash a hash table, and it holds only the lanes', async () => {
    const q = queues.queue();
    await fill(q, 100);
    const { jobs } = await lanes.claimMany(q, 100);
    expect(jobs).toHaveLength(100);
    expect(await encoding(keysOf(q).gactive)).toBe('hashtable');
    expect(await client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(100));
    expect(await lanes.completeMany(q, jobs.map((j) => ({ jobId: j.id, token: j.attempt })))).toEqual(jobs.map(() => true));
    expect(await client.exists(keysOf(q).gactive)).toBe(0);
  });

  it('a few active lanes stay as the server keeps a small hash', async () => {
    const q = queues.queue();
    await fill(q, 10);
    await lanes.claimMany(q, 10);
    expect(await encoding(keysOf(q).gactive)).not.toBe('hashtable');
    expect(await client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(10));
  });

  it('one-job claims do it too where the scripts run as functions (the count of new lanes outlives the call)', async () => {
    const functions = process.env[FUNCTIONS_ENV] !== 'off' && (await client.call('FUNCTION', 'LIST').then(() => true, () => false));
    const q = queues.queue();
    await fill(q, 100);
    for (let i = 0; i < 100; i++) expect(await lanes.claim(q)).not.toBeNull();
    expect(await client.hgetall(keysOf(q).gactive)).toEqual(onlyLanes(100));
    if (functions) expect(await encoding(keysOf(q).gactive)).toBe('hashtable');
  });
});
