import type { ResolvedEchoMqOptions } from '../interfaces';
import { withinCallTimeout } from '../redis/call-deadline';
import { Durability } from '../redis/durability';
import { LaneKeys } from '../redis/lane-keys';
import { fromServerError } from '../redis/server-errors';
import { LaneScripts, RedisClient } from '../scripts/lane-scripts';
import { checkName } from '../validation/validate';
import { notOnShardedQueue } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { JobShards, ShardCounts } from '../shards/shard-counts';
import { shardOf } from '../shards/shard-hash';
import { ShardVisits } from '../shards/shard-visits';

/**
 * @internal What every role behind `LanesService` shares: the command connection, the typed
 * scripts on it, the resolved options, and the keys of each queue (built once per queue name).
 */
export class LaneContext {
  readonly scripts: LaneScripts;
  /** Waits for replicas after acknowledged writes (`durability` option). */
  readonly durability: Durability;
  /** Each queue's shard count as last read (1 for a queue never sharded). */
  readonly shardCounts: ShardCounts;
  /** Which shard holds each job this process submitted or claimed on a sharded queue. */
  readonly jobShards = new JobShards();
  private readonly keys = new Map<string, LaneKeys>();
  private readonly visits = new Map<string, ShardVisits>();

  constructor(readonly client: RedisClient, readonly options: ResolvedEchoMqOptions) {
    this.scripts = new LaneScripts(client, undefined, options.compat === 'echomq', options.callTimeoutMs);
    this.durability = new Durability(client, options);
    this.shardCounts = new ShardCounts((k) => this.read('shards', k, client.hget(k.shards, 'n')).then((n) => Number(n) || 1));
  }

  /**
   * How many shards a queue has (1 unless `shards()` spread it; always 1 in compat mode, whose
   * reference scripts know no shards): a number at once, or on a queue's first call a read of it.
   */
  shardCount(k: LaneKeys): number | Promise<number> {
    return this.options.compat === 'echomq' ? 1 : this.shardCounts.of(k);
  }

  /** Keys of the shard that holds the lane (or the tenant) named `name`; the queue's own keys while unsharded. */
  async keysOfLane(k: LaneKeys, name: string): Promise<LaneKeys> {
    const n = await this.shardCount(k);
    return n === 1 ? k : k.shardKeys(shardOf(name, n));
  }

  /**
   * Refuses `operation` on a sharded queue (code MISCONFIGURED): one whose meaning spans the shards
   * in a way their scripts, each confined to its own slot, cannot keep (a tenant, a queue-wide ceiling).
   */
  async unsharded(k: LaneKeys, operation: string): Promise<void> {
    if ((await this.shardCount(k)) > 1) {
      throw new EchoMqError(notOnShardedQueue(operation, k.queue), { code: 'MISCONFIGURED', queue: k.queue });
    }
  }

  /** How this process spreads its claims over the `n` shards of a queue (anew when n changed). */
  visitsOf(k: LaneKeys, n: number): ShardVisits {
    let v = this.visits.get(k.queue);
    if (v === undefined || v.shards !== n) {
      if (this.visits.size > 10_000) this.visits.clear();
      v = new ShardVisits(n);
      this.visits.set(k.queue, v);
    }
    return v;
  }

  /** Keys of every shard of a queue, shard 0 (the queue's own keys) first. */
  async keysOfShards(k: LaneKeys): Promise<LaneKeys[]> {
    const n = await this.shardCount(k);
    return Array.from({ length: n }, (_, i) => k.shardKeys(i));
  }

  /**
   * Keys of the shard that holds job `id`: where this process submitted or claimed it, else the one
   * shard whose row of it exists (each asked, at once), else shard 0 (whose scripts then find no job).
   */
  async keysOfJob(k: LaneKeys, id: string): Promise<LaneKeys> {
    const n = await this.shardCount(k);
    if (n === 1) return k;
    const seen = this.jobShards.shardOf(k.queue, id);
    if (seen !== undefined && seen < n) return k.shardKeys(seen);
    const shards = Array.from({ length: n }, (_, i) => k.shardKeys(i));
    const found = await Promise.all(shards.map((s) => this.read('job', s, this.client.exists(s.job(id)))));
    const at = found.findIndex((x) => Number(x) > 0);
    if (at < 0) return k;
    this.jobShards.remember(k.queue, id, at);
    return shards[at];
  }

  /** The places of `ids` grouped by the shard that holds each job (one group, in order, while unsharded). */
  async jobsByShard(k: LaneKeys, ids: string[]): Promise<Map<LaneKeys, number[]>> {
    const n = await this.shardCount(k);
    if (n === 1) return new Map([[k, ids.map((_, i) => i)]]);
    const shards = await Promise.all(ids.map((id) => this.keysOfJob(k, id)));
    const out = new Map<LaneKeys, number[]>();
    shards.forEach((s, i) => {
      const places = out.get(s);
      if (places) places.push(i);
      else out.set(s, [i]);
    });
    return out;
  }

  /**
   * A plain command of `op` on the command connection, within callTimeoutMs; a server error
   * becomes an EchoMqError as a script's does.
   */
  read<T>(op: string, k: LaneKeys, pending: Promise<T>): Promise<T> {
    return withinCallTimeout(pending, this.options.callTimeoutMs, op, k.queue)
      .catch((err: unknown) => { throw fromServerError(op, k.queue, k.prefix, err); });
  }

  /** Keys of a queue, after checking its name. */
  keysOf(queue: unknown): LaneKeys {
    const cached = this.keys.get(queue as string);
    if (cached) return cached;
    const k = new LaneKeys(this.options.prefix, checkName('queue', queue));
    // NOTE: bounded, so a caller cycling through many queue names cannot grow it without end.
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(k.queue, k);
    return k;
  }
}
