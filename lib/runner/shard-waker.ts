import { dropRedisClient, duplicateClient } from '../redis/redis-connection';
import type { RedisClient } from '../scripts/lane-scripts';

/**
 * @internal The idle wait of a claim loop on a sharded queue: a BRPOP on every shard's wake list,
 * each on a connection of its own (a Cluster takes no command on keys of two slots, and a blocked
 * connection takes nothing else), and the first token ends the wait. A BRPOP still blocked when the
 * wait ends is kept for the next idle spell rather than sent again, so a loop has at most one in
 * flight per shard; a token it takes while the loop is busy is one the loop is already serving.
 * Shard 0 waits on the loop's own blocking connection; the others are opened as the shard count asks.
 */
export class ShardWaker {
  private readonly conns: RedisClient[] = [];
  private readonly inFlight = new Map<number, Promise<boolean>>();

  constructor(private readonly first: RedisClient) {}

  /**
   * Blocks until a token arrives on any of `wakeKeys` (one per shard, shard 0 first): true, with
   * the shard it came from; false once every shard's BRPOP timed out after `ms`.
   */
  wait(wakeKeys: string[], ms: number, woke: (shard: number) => void): Promise<boolean> {
    const seconds = (ms / 1000).toFixed(3);
    const waits = wakeKeys.map((key, i) => {
      let pending = this.inFlight.get(i);
      if (pending === undefined) {
        pending = this.connection(i).brpop(key, seconds).then((token) => {
          this.inFlight.delete(i);
          if (token !== null) woke(i);
          return token !== null;
        }, (err: unknown) => {
          this.inFlight.delete(i);
          throw err;
        });
        this.inFlight.set(i, pending);
      }
      return pending;
    });
    return new Promise<boolean>((resolve, reject) => {
      let left = waits.length;
      for (const w of waits) {
        w.then((got) => {
          if (got) resolve(true);
          else if (--left === 0) resolve(false);
        }, reject);
      }
    });
  }

  /** Drops the connections it opened (a BRPOP in flight ends with them). */
  close(): void {
    for (const c of this.conns.splice(0)) if (c !== undefined) dropRedisClient(c);
  }

  private connection(shard: number): RedisClient {
    if (shard === 0) return this.first;
    let c = this.conns[shard];
    if (c === undefined) {
      c = duplicateClient(this.first);
      this.conns[shard] = c;
    }
    return c;
  }
}
