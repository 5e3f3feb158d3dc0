import calculateSlot from 'cluster-key-slot';
import { LaneKeys } from '../../lib/redis/lane-keys';
import { fnv1a64, jumpHash, shardOf } from '../../lib/shards/shard-hash';
import { keySlot } from '../../lib/shards/key-slot';
import { isTagList, plainTag, spreadTags } from '../../lib/shards/shard-tags';

// Every process must put a lane in the same shard, now and in every later release: these vectors
// pin both functions. FNV-1a's are the published ones; jump hash's match the Go port (dgryski/go-jump).
describe('shard routing', () => {
  it('FNV-1a 64 matches its published vectors', () => {
    expect(fnv1a64('').toString(16)).toBe('cbf29ce484222325');
    expect(fnv1a64('a').toString(16)).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar').toString(16)).toBe('85944171f73967e8');
  });

  it('jump consistent hash matches the reference vectors', () => {
    expect([jumpHash(1n, 1), jumpHash(42n, 57), jumpHash(0xdead10ccn, 1), jumpHash(0xdead10ccn, 666), jumpHash(256n, 1024)])
      .toEqual([0, 43, 0, 361, 520]);
  });

  it('pins the shard of sample lanes for several counts (a change here would split lanes between releases)', () => {
    const table = Object.fromEntries(['g', 'PLR1', 'room:42', 'ünïcødé', '🙂'].map((g) => [g, [1, 2, 3, 4, 6, 8, 16, 64].map((n) => shardOf(g, n))]));
    expect(table).toEqual({
      g: [0, 0, 0, 3, 4, 6, 11, 31],
      PLR1: [0, 0, 0, 3, 3, 3, 9, 58],
      'room:42': [0, 1, 2, 2, 2, 6, 14, 38],
      'ünïcødé': [0, 1, 1, 3, 5, 5, 5, 32],
      '🙂': [0, 1, 1, 3, 4, 4, 4, 4],
    });
  });

  it('spreads names evenly, and growing n by one moves about 1/(n+1) of them, all into the new shard', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `lane-${i}`);
    const counts = new Array<number>(8).fill(0);
    for (const g of names) counts[shardOf(g, 8)]++;
    for (const c of counts) expect(Math.abs(c - 2_500)).toBeLessThan(250);
    for (const n of [1, 3, 8, 15]) {
      let moved = 0;
      for (const g of names) {
        const before = shardOf(g, n);
        const after = shardOf(g, n + 1);
        if (before !== after) {
          moved++;
          expect(after).toBe(n);
        }
      }
      expect(Math.abs(moved / names.length - 1 / (n + 1))).toBeLessThan(0.02);
    }
  });

  it('a shard i >= 1 has keys of its own slot, tagged {q{i}; shard 0 keeps the queue\'s keys', () => {
    const k = new LaneKeys('emq', 'cm');
    expect(k.shardKeys(0)).toBe(k);
    const s3 = k.shardKeys(3);
    expect(s3).toBe(k.shardKeys(3));
    expect([s3.base, s3.ring, s3.lane('g'), s3.job('JOB00000000001'), s3.shard, s3.queue])
      .toEqual(['emq:{cm{3}:', 'emq:{cm{3}:ring', 'emq:{cm{3}:g:g:pending', 'emq:{cm{3}:job:JOB00000000001', 3, 'cm']);
    expect(s3.pattern()).toBe('emq:{cm{3}:*');
    // NOTE: Redis hashes from the first '{' to the first '}' after it: 'cm{3'.
    expect(calculateSlot(s3.ring)).toBe(calculateSlot('cm{3'));
    expect(calculateSlot(s3.ring)).not.toBe(calculateSlot(k.ring));
    expect(new Set(Array.from({ length: 8 }, (_, i) => calculateSlot(k.shardKeys(i).ring))).size).toBe(8);
    expect(k.shards).toBe('emq:{cm}:shards');
  });
});

describe('shard placement on a Cluster (spread tags)', () => {
  /** What `redis-cli --cluster create` makes of three masters: three contiguous thirds. */
  const THIRDS = [{ from: 0, to: 5460, master: 'a' }, { from: 5461, to: 10922, master: 'b' }, { from: 10923, to: 16383, master: 'c' }];
  const masterOf = (slot: number): string => THIRDS.find((r) => slot >= r.from && slot <= r.to)!.master;

  it('computes the slot Redis does (checked against cluster-key-slot), hash tags included', () => {
    for (const key of ['emq:{cm}:ring', 'emq:{cm{3}:ring', 'emq:{cm{3.26}:ring', 'plain', '{}x', 'a{b}c{d}', 'ünï{cødé}', 'x'.repeat(300)]) {
      expect(keySlot(key)).toBe(calculateSlot(key));
    }
  });

  it('spreads n shards over three masters as evenly as counts allow, shard 0 keeping the queue\'s tag', () => {
    for (const queue of ['cm', 'orders', 'q-with-dash', 'ü']) {
      for (const n of [2, 3, 4, 6, 8, 16, 64]) {
        const tags = spreadTags(queue, n, THIRDS);
        expect(tags[0]).toBe(queue);
        expect(isTagList(tags, queue, n)).toBe(true);
        expect(new Set(tags.map((t) => keySlot(`{${t}}`))).size).toBe(n);
        const per = new Map<string, number>();
        for (const t of tags) per.set(masterOf(keySlot(`emq:{${t}}:ring`)), (per.get(masterOf(keySlot(`emq:{${t}}:ring`))) ?? 0) + 1);
        expect(Math.max(...per.values()) - Math.min(...per.values())).toBeLessThanOrEqual(1);
        expect(per.size).toBe(Math.min(3, n));
      }
    }
    // One master (or no layout): the plain tags.
    expect(spreadTags('cm', 4, [{ from: 0, to: 16383, master: 'a' }])).toEqual([0, 1, 2, 3].map((i) => plainTag('cm', i)));
  });

  it('refuses a stored tag list that is not one for the queue and count (the plain tags are used then)', () => {
    expect(isTagList(['cm', 'cm{1', 'cm{2.7'], 'cm', 3)).toBe(true);
    for (const bad of [['cm', 'cm{1'], ['x', 'cm{1', 'cm{2'], ['cm', 'cm{2', 'cm{1'], ['cm', 'cm{1}', 'cm{2'], ['cm', 1, 'cm{2'], 'cm']) {
      expect(isTagList(bad, 'cm', 3)).toBe(false);
    }
  });
});
