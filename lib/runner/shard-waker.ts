import type { RedisClient } from '../scripts/lane-scripts';

/** The least time left in a wait for which a shard's BRPOP is sent again (see ShardWaker.wait). */
const REARM_MIN_MS = 5;

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
   * telling `woke` the shard; false once `ms` have passed, or at once when `signal` aborts (the loop
   * is stopping). A shard's BRPOP kept from an earlier wait that times out before this wait's time
   * is sent again for the rest of it, so every shard is watched until the end; one that outlasts
   * the wait is kept for the next.
   */
  wait(wakeKeys: string[], ms: number, woke: (shard: number) => void, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + ms;
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) return resolve(false);
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (fn: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
        fn();
      };
      const stop = (): void => settle(() => resolve(false));
      signal?.addEventListener('abort', stop, { once: true });
      timer = setTimeout(stop, ms);
      const watch = (i: number): void => {
        this.brpop(i, wakeKeys[i], deadline, woke).then((got) => {
          if (done) return;
          if (got) settle(() => resolve(true));
          else if (deadline - Date.now() >= REARM_MIN_MS) watch(i);
        }, (err: unknown) => settle(() => reject(err)));
      };
      wakeKeys.forEach((_, i) => watch(i));
    });
  }

  /** The shard's BRPOP in flight, or a new one that blocks until `deadline`; true when it took a token (after telling `woke`). */
  private brpop(i: number, key: string, deadline: number, woke: (shard: number) => void): Promise<boolean> {
    let pending = this.inFlight.get(i);
    if (pending === undefined) {
      const conn = this.connection(i);
      const seconds = (Math.max(deadline - Date.now(), REARM_MIN_MS) / 1000).toFixed(3);
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
