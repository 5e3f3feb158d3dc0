import { randomBytes } from 'crypto';
import { LaneKeys } from '../redis/lane-keys';
import type { LaneScripts, RedisClient } from '../scripts/lane-scripts';
import { readShardMap, toShardMap } from './shard-counts';

/** A plain read on the command connection, bounded and with its errors mapped (LaneContext.read). */
type Read = <T>(op: string, k: LaneKeys, pending: Promise<T>) => Promise<T>;

/**
 * @internal Puts back the fences of a change of the shard count whose process died (see
 * lua/setShards). A change fences shards for its new map under the queue's lock, and stores the map
 * or puts the fences back before it lets the lock go. So a fence for another map than the one stored,
 * while nobody holds the lock, is one a dead change left; until it is put back every call routed to
 * that shard is refused. The first call to meet it mends it, under the lock, by the map read there.
 */
export class FenceMend {
  constructor(private readonly client: RedisClient, private readonly scripts: LaneScripts, private readonly read: Read) {}

  /**
   * When no change holds the lock of queue `k` (shard 0's keys): takes it, and if the stored map is
   * still `map` (count and gen; '' for a queue never sharded) sets every shard of it back to that
   * map's fence. Returns whether it did (false: a change holds the lock, or the map changed).
   */
  async mend(k: LaneKeys, map: { n: number; gen: string }): Promise<boolean> {
    const token = randomBytes(6).toString('hex');
    if (!(await this.scripts.changeLock(k, map.n, token, 'take'))) return false;
    try {
      const now = toShardMap(k.queue, await this.read('shards', k, readShardMap(this.client, k)));
      if (now.n !== map.n || (now.gen ?? '') !== map.gen) return false;
      const shards = Array.from({ length: now.n }, (_, i) => (i === 0 ? k : new LaneKeys(k.prefix, k.queue, i, now.tags?.[i])));
      const fences = await Promise.all(shards.map((s) => this.read('shards', s, this.client.get(s.shardGen))));
      // NOTE: a queue never sharded has no fence; the others have their map's gen. Each is put back
      // only while it holds what was read here: this call's lock may lapse before it gets there (it
      // is not renewed), and a later change's fences must stand.
      await Promise.all(shards.map((s, i) => ((fences[i] ?? '') === map.gen ? undefined
        : this.scripts.restoreFence(s, now.n, map.gen === '' ? null : map.gen, fences[i] ?? ''))));
      return true;
    } finally {
      await this.scripts.changeLock(k, map.n, token, 'release');
    }
  }
}
