import type { RedisClient } from '../scripts/lane-scripts';

/**
 * @internal The idle wait on a sharded queue's wake lists: a BRPOP on every shard's list, each on a
 * connection of its own (a Cluster takes no command on keys of two slots, and a blocked connection
 * takes nothing else), and the first token ends the wait. One waker per queue serves every claim
 * loop of the process on that queue (the orchestrator shares it): loops idle at once share the
 * BRPOPs in flight, and a BRPOP still blocked when a wait ends is kept for the next one rather
 * than sent again, so a process has at most one in flight per shard. A token taken while every
 * loop is busy is one they are serving anyway.
 */
export class ShardWaker {
  private readonly conns = new Map<number, RedisClient>();
  private readonly inFlight = new Map<number, Promise<boolean>>();

  /** `open(shard)` makes the connection of a shard's BRPOP; `drop` ends one (a BRPOP in flight with it). */
  constructor(private readonly open: (shard: number) => RedisClient, private readonly drop: (c: RedisClient) => void) {}

  /**
   * Blocks until a token arrives on any of `wakeKeys` (one per shard, shard 0 first): true, after
   * telling `woke` the shard; false once every shard's BRPOP timed out after `ms`, or at once
   * when `signal` aborts (the loop is stopping).
   */
  wait(wakeKeys: string[], ms: number, woke: (shard: number) => void, signal?: AbortSignal): Promise<boolean> {
    const seconds = (ms / 1000).toFixed(3);
    const waits = wakeKeys.map((key, i) => {
      let pending = this.inFlight.get(i);
      if (pending === undefined) {
        const conn = this.connection(i);
        pending = conn.brpop(key, seconds).then((token) => {
          if (this.conns.get(i) === conn) this.inFlight.delete(i);
          if (token !== null) woke(i);
          return token !== null;
        }, (err: unknown) => {
          // NOTE: a connection renew() ended: its BRPOP counts as timed out.
          if (this.conns.get(i) !== conn) return false;
          this.inFlight.delete(i);
          throw err;
        });
        this.inFlight.set(i, pending);
      }
      return pending;
    });
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) return resolve(false);
      const stop = (): void => resolve(false);
      signal?.addEventListener('abort', stop, { once: true });
      const settle = (fn: () => void): void => {
        signal?.removeEventListener('abort', stop);
        fn();
      };
      let left = waits.length;
      for (const w of waits) {
        w.then((got) => {
          if (got) settle(() => resolve(true));
          else if (--left === 0) settle(() => resolve(false));
        }, (err: unknown) => settle(() => reject(err)));
      }
    });
  }

  /**
   * Ends every connection and BRPOP in flight, whose waits count them as timed out; the next wait
   * opens new ones (see ClaimLoop's IDLE_OVERDUE_MS: a BRPOP re-sent after a reconnect).
   */
  renew(): void {
    this.inFlight.clear();
    this.close();
  }

  /** Ends every connection it opened (the BRPOPs in flight end with them). */
  close(): void {
    for (const c of this.conns.values()) this.drop(c);
    this.conns.clear();
  }

  private connection(shard: number): RedisClient {
    let c = this.conns.get(shard);
    if (c === undefined) {
      c = this.open(shard);
      this.conns.set(shard, c);
    }
    return c;
  }
}
