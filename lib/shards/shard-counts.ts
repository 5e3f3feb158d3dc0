import type { LaneKeys } from '../redis/lane-keys';

/** @internal How long a process trusts a queue's shard count before it reads it again (in the background). */
export const SHARDS_REFRESH_MS = 1_000;

interface Known {
  n: number;
  at: number;
  /** The first read, while it is under way (calls made meanwhile share it). */
  first?: Promise<number>;
  refreshing?: boolean;
}

/**
 * @internal Each queue's shard count as this process last read it from the server (the hash
 * `emq:{q}:shards`, see LanesService.shards). The first call on a queue waits for the read; later
 * ones get the count at once, and a count over SHARDS_REFRESH_MS old is read again behind them, so
 * a change (made while the queue is empty) reaches every process within about a second.
 */
export class ShardCounts {
  private readonly known = new Map<string, Known>();

  constructor(private readonly readCount: (k: LaneKeys) => Promise<number>) {}

  of(k: LaneKeys): number | Promise<number> {
    const e = this.known.get(k.queue);
    if (e === undefined) return this.readFirst(k);
    if (e.first !== undefined) return e.first;
    if (Date.now() - e.at >= SHARDS_REFRESH_MS && !e.refreshing) {
      e.refreshing = true;
      // NOTE: a failed refresh keeps the count it had; the next call past the age tries again.
      this.readCount(k).then((n) => this.set(k.queue, n), () => undefined).finally(() => { e.refreshing = false; });
    }
    return e.n;
  }

  /** Records a count this process wrote or read. */
  set(queue: string, n: number): void {
    // NOTE: bounded, as the keys of queues are (LaneContext.keysOf): a caller cycling through queue names cannot grow it without end.
    if (this.known.size > 10_000 && !this.known.has(queue)) this.known.clear();
    this.known.set(queue, { n, at: Date.now() });
  }

  private readFirst(k: LaneKeys): Promise<number> {
    const e: Known = { n: 1, at: 0 };
    e.first = this.readCount(k).then((n) => {
      if (this.known.get(k.queue) === e) this.set(k.queue, n);
      return n;
    }, (err: unknown) => {
      // NOTE: a failed first read is forgotten, so that the next call reads again.
      if (this.known.get(k.queue) === e) this.known.delete(k.queue);
      throw err;
    });
    this.known.set(k.queue, e);
    return e.first;
  }
}

/**
 * @internal Which shard holds each job this process submitted or claimed on a sharded queue, so that
 * a call by id goes straight there; a job it never saw is looked for on every shard (see
 * ShardRouter.ofJob). Bounded: past MAX entries the oldest are forgotten.
 */
export class JobShards {
  static readonly MAX = 100_000;
  private readonly shards = new Map<string, number>();

  remember(queue: string, id: string, shard: number): void {
    const key = queue + '\u0000' + id;
    this.shards.delete(key);
    this.shards.set(key, shard);
    if (this.shards.size > JobShards.MAX) this.shards.delete(this.shards.keys().next().value as string);
  }

  shardOf(queue: string, id: string): number | undefined {
    return this.shards.get(queue + '\u0000' + id);
  }
}
