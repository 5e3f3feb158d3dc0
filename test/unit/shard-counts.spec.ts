import { EchoMqError } from '../../lib/errors';
import { LaneKeys } from '../../lib/redis/lane-keys';
import { SHARDS_REFRESH_MS, SHARDS_STALE_MS, ShardCounts, ShardMap } from '../../lib/shards/shard-counts';

/** The shard count cache: when a process may use the count it holds, and when it must read it first. */
describe('ShardCounts', () => {
  afterEach(() => jest.restoreAllMocks());

  it('uses a count up to SHARDS_STALE_MS old (reading it again behind the call past SHARDS_REFRESH_MS), and reads an older one before the call goes on', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    let stored: ShardMap = { n: 1 };
    let reads = 0;
    const counts = new ShardCounts(async () => {
      reads += 1;
      return stored;
    });
    const k = new LaneKeys('emq', 'q');
    expect(await counts.of(k)).toBe(1);
    expect(reads).toBe(1);
    // Another process changes the map.
    stored = { n: 4, gen: 'g1' };
    now += SHARDS_REFRESH_MS - 1;
    expect(counts.of(k)).toBe(1);
    expect(reads).toBe(1);
    // Past the refresh age: the call gets the count held, and a read goes out behind it.
    now += 2;
    expect(counts.of(k)).toBe(1);
    expect(reads).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(counts.of(k)).toBe(4);
    // Idle past the stale age: the call waits for the read, so it never routes by a map that old.
    stored = { n: 2, gen: 'g2' };
    now += SHARDS_STALE_MS;
    const pending = counts.of(k);
    expect(pending).toBeInstanceOf(Promise);
    expect(counts.of(k)).toBe(pending);
    expect(await pending).toBe(2);
    expect(reads).toBe(3);
    expect(counts.of(k)).toBe(2);
  });

  it('keeps the count it held when the read before a stale call fails', async () => {
    let now = 5_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    let fail = false;
    const counts = new ShardCounts(async () => {
      if (fail) throw new Error('down');
      return { n: 3, gen: 'g' };
    });
    const k = new LaneKeys('emq', 'q2');
    expect(await counts.of(k)).toBe(3);
    fail = true;
    now += SHARDS_STALE_MS;
    expect(await counts.of(k)).toBe(3);
  });

  it('rejects a stale call whose read got no answer in callTimeoutMs (UNAVAILABLE), rather than let the call wait as long again', async () => {
    let now = 9_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    let fail = false;
    const counts = new ShardCounts(async () => {
      if (fail) throw new EchoMqError('no answer', { code: 'UNAVAILABLE', queue: 'q3' });
      return { n: 2, gen: 'g' };
    });
    const k = new LaneKeys('emq', 'q3');
    expect(await counts.of(k)).toBe(2);
    fail = true;
    now += SHARDS_STALE_MS;
    await expect(counts.of(k)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // The next call reads again (the count is as stale as before), and uses the answer once there is one.
    fail = false;
    expect(await counts.of(k)).toBe(2);
  });
});
