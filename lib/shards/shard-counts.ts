import { EchoMqError } from '../errors';
import type { LaneKeys } from '../redis/lane-keys';
import type { RedisClient } from '../scripts/lane-scripts';
import { isTagList } from './shard-tags';

/** @internal How long a process trusts a queue's shard count before it reads it again (in the background). */
export const SHARDS_REFRESH_MS = 1_000;

/**
 * @internal A count this old is read again before it is used, not behind the call: a process that has
 * not called for that long (no background read since) may hold a map changed meanwhile, and a submit by
 * an old count into a shard the new one drops is refused (see lua/setShards) and has to go again.
 */
export const SHARDS_STALE_MS = 2 * SHARDS_REFRESH_MS;

/** @internal A queue's shard map as read: its count, and its shards' tags when stored (see shard-tags.ts). */
export interface ShardMap {
  n: number;
  tags?: string[];
  /** A token each `shards()` call stores anew (field gen), so a process sees a new map of the same count. */
  gen?: string;
}

interface Known {
  n: number;
  gen?: string;
  at: number;
  /** The first read, while it is under way (calls made meanwhile share it). */
  first?: Promise<number>;
  refreshing?: boolean;
}

/**
 * @internal Each queue's shard count as this process last read it from the server (the hash
 * `emq:{q}:shards`, see LanesService.shards), and its shards' tags, which it hands to the queue's
 * keys. The first call on a queue waits for the read; later ones get the count at once, and a
 * count over SHARDS_REFRESH_MS old is read again behind them, so a change (made while the queue is
 * empty) reaches every process within about a second; one over SHARDS_STALE_MS old (the process was
 * idle) is read again before the call goes on.
 */
export class ShardCounts {
  private readonly known = new Map<string, Known>();

  /** `changed`: told the queue whose map (count or generation) differs from the one known before. */
  constructor(private readonly readMap: (k: LaneKeys) => Promise<ShardMap>, private readonly changed: (queue: string) => void = () => undefined) {}

  of(k: LaneKeys): number | Promise<number> {
    const e = this.known.get(k.queue);
    if (e === undefined) return this.readFirst(k);
    if (e.first !== undefined) return e.first;
    if (Date.now() - e.at >= SHARDS_STALE_MS) {
      // NOTE: calls made meanwhile share the read; a failed one keeps the count it had, except one
      // that got no answer in callTimeoutMs: the call it goes before would wait as long again, so
      // the call rejects now (UNAVAILABLE), in one callTimeoutMs, as the option promises.
      e.first = this.readMap(k).then((m) => {
        e.first = undefined;
        this.set(k, m);
        return m.n;
      }, (err: unknown) => {
        e.first = undefined;
        if (err instanceof EchoMqError && err.code === 'UNAVAILABLE') throw err;
        return e.n;
      });
      return e.first;
    }
    if (Date.now() - e.at >= SHARDS_REFRESH_MS && !e.refreshing) {
      e.refreshing = true;
      // NOTE: a failed refresh keeps the count it had; the next call past the age tries again.
      this.readMap(k).then((m) => this.set(k, m), () => undefined).finally(() => { e.refreshing = false; });
    }
    return e.n;
  }

  /** The count and generation this process knows for the queue now (undefined before its first read). */
  knownMap(queue: string): { n: number; gen?: string } | undefined {
    const e = this.known.get(queue);
    return e === undefined || e.first !== undefined ? undefined : { n: e.n, gen: e.gen };
  }

  /**
   * Reads the queue's map now, whatever the age of the one known (a shard answered that it is closed:
   * the count changed, or is changing), records it and returns its count.
   */
  async reread(k: LaneKeys): Promise<number> {
    const map = await this.readMap(k);
    this.set(k, map);
    return map.n;
  }

  /** Records a map this process wrote or read, and gives the queue's keys its tags. */
  set(k: LaneKeys, map: ShardMap): void {
    // NOTE: bounded, as the keys of queues are (LaneContext.keysOf): a caller cycling through queue names cannot grow it without end.
    if (this.known.size > 10_000 && !this.known.has(k.queue)) this.known.clear();
    k.useShardTags(map.n > 1 ? map.tags : undefined);
    const before = this.known.get(k.queue);
    this.known.set(k.queue, { n: map.n, gen: map.gen, at: Date.now() });
    // NOTE: told once the new map is known, so what it does reads the new one.
    if (before !== undefined && (before.n !== map.n || before.gen !== map.gen)) this.changed(k.queue);
  }

  private readFirst(k: LaneKeys): Promise<number> {
    const e: Known = { n: 1, at: 0 };
    e.first = this.readMap(k).then((m) => {
      if (this.known.get(k.queue) === e) this.set(k, m);
      return m.n;
    }, (err: unknown) => {
      // NOTE: a failed first read is forgotten, so that the next call reads again.
      if (this.known.get(k.queue) === e) this.known.delete(k.queue);
      throw err;
    });
    this.known.set(k.queue, e);
    return e.first;
  }
}

/** @internal The read of a queue's shard map (one HMGET of `emq:{q}:shards` in shard 0), for {@link toShardMap}. */
export function readShardMap(client: Pick<RedisClient, 'hmget'>, k: LaneKeys): Promise<(string | null)[]> {
  return client.hmget(k.shards, 'n', 'tags', 'gen');
}

/** @internal A shard map as the hash `emq:{q}:shards` holds it (fields n, tags and gen), from {@link readShardMap}. */
export function toShardMap(queue: string, [n, tags, gen]: (string | null)[]): ShardMap {
  const count = Number(n) || 1;
  const map: ShardMap = { n: count };
  // NOTE: a queue unsharded again keeps its map's gen too (n 1): its submits name it, so one routed by
  // the map from before the queue was sharded is told apart (see lua/setShards).
  if (typeof gen === 'string' && gen !== '') map.gen = gen;
  if (count === 1 || typeof tags !== 'string') return map;
  let parsed: unknown;
  try {
    parsed = JSON.parse(tags);
  } catch {
    return map;
  }
  if (isTagList(parsed, queue, count)) map.tags = parsed;
  return map;
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
