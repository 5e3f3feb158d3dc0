import { notOnShardedQueue, shardMapChanging } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { ResolvedEchoMqOptions } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import type { RedisClient } from '../scripts/lane-scripts';
import type { FenceMend } from './fence-mend';
import { LaneBindings } from './lane-bindings';
import { JobShards, readShardMap, ShardCounts, ShardMap, toShardMap } from './shard-counts';
import { shardOf } from './shard-hash';
import { ShardVisits } from './shard-visits';

/**
 * How long a call that met a shard fenced for another map (a change of the shard count is under way
 * or just made, see lua/setShards) waits for the map in force, reading it again every STALE_POLL_MS.
 */
const STALE_WAIT_MS = 5_000;
const STALE_POLL_MS = 50;

/** A plain read on the command connection, bounded and with its errors mapped (LaneContext.read). */
type Read = <T>(op: string, k: LaneKeys, pending: Promise<T>) => Promise<T>;

/**
 * @internal Where each part of a queue lives when it is sharded (see LanesService.shards): the
 * shard count, a lane's shard, a job's shard, every shard, and how this process's claims visit
 * them. On an unsharded queue every answer is the queue's own keys, at once after the first call.
 */
export class ShardRouter {
  /** Each queue's shard count as last read (1 for a queue never sharded). */
  readonly counts: ShardCounts;
  /** Which shard holds each job this process submitted or claimed on a sharded queue. */
  readonly jobs = new JobShards();
  /** Which lanes of sharded queues this process knows to be bound to a tenant (living in its shard). */
  readonly bindings = new LaneBindings();
  private readonly visits = new Map<string, ShardVisits>();

  constructor(private readonly client: RedisClient, private readonly options: ResolvedEchoMqOptions, private readonly read: Read,
    private readonly fences?: FenceMend) {
    this.counts = new ShardCounts((k) => this.readMap(k), (queue) => this.bindings.forget(queue, this.counts.knownMap(queue)?.gen ?? ''));
  }

  /** The queue's shard map as the server holds it now (count and tags; n 1 while it is unsharded). */
  async readMap(k: LaneKeys): Promise<ShardMap> {
    return toShardMap(k.queue, await this.read('shards', k, readShardMap(this.client, k)));
  }

  /**
   * How many shards a queue has (1 unless `shards()` spread it; always 1 in compat mode, whose
   * reference scripts know no shards): a number at once, or on a queue's first call a read of it.
   */
  count(k: LaneKeys): number | Promise<number> {
    if (this.options.compat !== 'echomq') return this.counts.of(k);
    // NOTE: the map is read all the same, for its gen: a queue unsharded again fences shard 0 with
    // it, and a submit names it (see routedBy).
    const n = this.counts.of(k);
    return typeof n === 'number' ? 1 : n.then(() => 1);
  }

  /**
   * Keys of the shard that holds the lane named `group`: its tenant's shard when the lane is bound
   * to one (see lua/bindLanes-1.lua), else its home, the shard its name hashes to; the queue's own
   * keys while unsharded. NOTE: for the lane's settings and reads (cold paths): the binding is read
   * from the home each time, as another process may have moved the lane to another tenant since.
   */
  async ofLane(k: LaneKeys, group: string): Promise<LaneKeys> {
    const n = await this.count(k);
    if (n === 1) return k;
    const tenant = await this.boundTenant(k, group, n);
    return k.shardKeys(shardOf(tenant ?? group, n));
  }

  /**
   * The count and gen of the shard map this process routes by now, taken together ('' gen for a
   * queue never sharded; count 1 in compat mode): a submit names the gen, and a shard fenced for
   * another map refuses it (see lua/setShards).
   */
  routedBy(k: LaneKeys): { n: number; gen: string } {
    const map = this.counts.knownMap(k.queue);
    if (map === undefined) return { n: 1, gen: '' };
    return { n: this.options.compat === 'echomq' ? 1 : map.n, gen: map.gen ?? '' };
  }

  /** Keys of the shard that holds tenant `tenant` and all its lanes; the queue's own keys while unsharded. */
  async ofTenant(k: LaneKeys, tenant: string): Promise<LaneKeys> {
    const n = await this.count(k);
    return n === 1 ? k : k.shardKeys(shardOf(tenant, n));
  }

  /** The tenant a lane of a sharded queue of `n` shards is bound to (null: none), read from its home (and remembered). */
  async boundTenant(k: LaneKeys, group: string, n: number): Promise<string | null> {
    return (await this.binding(k, group, n)).tenant;
  }

  /**
   * The lane's binding as its home holds it (and remembered, as boundTenant), with its version
   * (see lua/bindLanes-1.lua): read first, on the same connection, so a binding written between the
   * two reads comes with an older version, which bindLanes then refuses as changed.
   */
  async binding(k: LaneKeys, group: string, n: number): Promise<{ tenant: string | null; version: string }> {
    const gen = this.genOf(k, n);
    const home = k.shardKeys(shardOf(group, n));
    const [version, tenant] = await this.read('lane', home, Promise.all([
      this.client.hget(home.boundVersions, group), this.client.hget(home.bound, group)]));
    if (tenant !== null) this.bindings.remember(k.queue, group, tenant, gen);
    else this.bindings.forgetLane(k.queue, group);
    return { tenant, version: version ?? '0' };
  }

  /**
   * The gen of the shard map this process routes queue `k` by, when that map has `n` shards: what a
   * binding learnt in a lane's home under `n` is remembered by (see LaneBindings.remember);
   * undefined when the map known now has another count.
   */
  genOf(k: LaneKeys, n: number): string | undefined {
    const map = this.routedBy(k);
    return map.n === n ? map.gen : undefined;
  }

  /**
   * Writes a setting of lane `group` in the shard that holds the lane (`write` is given its keys),
   * then reads that shard's fence (see lua/setShards). A fence for another map than the one the write
   * went by means a change of the shard count has begun there (its copy of the settings may have
   * been taken before this write) or is done: the write waits for the new map, then goes again by
   * it. A setting written twice is the same setting (a weight, a ceiling, a pause). `left` is told
   * the shard of a write made by a map since replaced, when the new map put the lane elsewhere (its
   * copy there is to be cleared). Costs one GET per call.
   */
  onLane<T>(k: LaneKeys, group: string, write: (shard: LaneKeys) => Promise<T>, left?: (from: LaneKeys) => Promise<void>): Promise<T> {
    return this.settled(k, () => this.ofLane(k, group), write, left);
  }

  /** As {@link onLane}, for a setting of tenant `tenant`, in the shard that holds the tenant. */
  onTenant<T>(k: LaneKeys, tenant: string, write: (shard: LaneKeys) => Promise<T>, left?: (from: LaneKeys) => Promise<void>): Promise<T> {
    return this.settled(k, () => this.ofTenant(k, tenant), write, left);
  }

  /**
   * As {@link onLane}, for an operation on every shard (pauseQueue, resumeQueue, fairness, drain):
   * done again on every shard of the new map when a shard was fenced for another. `run` must be
   * safe to repeat.
   */
  async onEvery<T>(k: LaneKeys, run: (shards: LaneKeys[]) => Promise<T>): Promise<T> {
    if (this.options.compat === 'echomq') return run([k]);
    let since: number | undefined;
    for (;;) {
      const map = this.routedBy(k);
      const shards = await this.all(k);
      const result = await run(shards);
      const fences = await Promise.all(shards.map((s) => this.read('shards', s, this.client.get(s.shardGen))));
      // NOTE: no fence reads as '', an unsharded queue's (see lua/setShards).
      if (fences.every((f) => (f ?? '') === map.gen)) return result;
      since ??= Date.now();
      await this.afterStale(k, fences.findIndex((f) => (f ?? '') !== map.gen), map, since);
    }
  }

  private async settled<T>(k: LaneKeys, where: () => Promise<LaneKeys>, write: (shard: LaneKeys) => Promise<T>,
    left?: (from: LaneKeys) => Promise<void>): Promise<T> {
    // NOTE: a compat queue has one shard, always.
    if (this.options.compat === 'echomq') return write(k);
    let since: number | undefined;
    let stale: LaneKeys | undefined;
    for (;;) {
      const map = this.routedBy(k);
      const shard = await where();
      // NOTE: where() may have read the map (a first read, or one behind the calls): go by the one it used.
      const used = this.routedBy(k);
      if (used.n !== map.n || used.gen !== map.gen) continue;
      const result = await write(shard);
      const fence = await this.read('shards', shard, this.client.get(shard.shardGen));
      if ((fence ?? '') === map.gen) {
        if (stale !== undefined && stale.base !== shard.base && left) await left(stale);
        return result;
      }
      stale = shard;
      since ??= Date.now();
      await this.afterStale(k, shard.shard, map, since);
    }
  }

  /**
   * After shard `shard` turned out fenced for another map than `map` (a change of the shard count
   * is under way, or done: see lua/setShards): the map read again until it is not `map`, every
   * STALE_POLL_MS; past STALE_WAIT_MS since the first such fence (`since`) the call rejects
   * (UNAVAILABLE). A fence left by a change whose process died (no change holds the queue's lock)
   * is put back at once (see FenceMend), and the call goes again by the same map. Returns the count
   * of the map read.
   */
  async afterStale(k: LaneKeys, shard: number, map: { n: number; gen: string }, since: number): Promise<number> {
    for (;;) {
      const n = await this.counts.reread(k);
      const read = this.routedBy(k);
      if (read.n !== map.n || read.gen !== map.gen) return n;
      if (this.fences && (await this.fences.mend(k, map))) return n;
      const waited = Date.now() - since;
      if (waited >= STALE_WAIT_MS) throw new EchoMqError(shardMapChanging(k.queue, shard, waited), { code: 'UNAVAILABLE', queue: k.queue });
      await new Promise((resolve) => setTimeout(resolve, STALE_POLL_MS));
    }
  }

  /** Keys of every shard of a queue, shard 0 (the queue's own keys) first. */
  async all(k: LaneKeys): Promise<LaneKeys[]> {
    const n = await this.count(k);
    return Array.from({ length: n }, (_, i) => k.shardKeys(i));
  }

  /**
   * Keys of the shard that holds job `id`: where this process submitted or claimed it, else the one
   * shard whose row of it exists (each asked, at once), else shard 0 (whose scripts then find no job).
   */
  async ofJob(k: LaneKeys, id: string): Promise<LaneKeys> {
    const n = await this.count(k);
    if (n === 1) return k;
    const seen = this.jobs.shardOf(k.queue, id);
    if (seen !== undefined && seen < n) return k.shardKeys(seen);
    const shards = await this.all(k);
    const found = await Promise.all(shards.map((s) => this.read('job', s, this.client.exists(s.job(id)))));
    const at = found.findIndex((x) => Number(x) > 0);
    if (at < 0) return k;
    this.jobs.remember(k.queue, id, at);
    return shards[at];
  }

  /**
   * A read or change of job `id` (`run`, given the shard that holds it) that finds no job (`found`
   * false) asks again once the shard map read anew is not the one it went by: a process whose count
   * is up to 2 s old may look for a job where the new map does not put it. Costs a read of the map
   * (one HMGET) per miss.
   */
  async byId<T>(k: LaneKeys, id: string, run: (shard: LaneKeys) => Promise<T>, found: (result: T) => boolean): Promise<T> {
    const result = await run(await this.ofJob(k, id));
    if (found(result) || !(await this.mapChanged(k))) return result;
    return run(await this.ofJob(k, id));
  }

  /** Whether the shard map read now (one HMGET) is not the one this process went by (never in compat mode). */
  async mapChanged(k: LaneKeys): Promise<boolean> {
    if (this.options.compat === 'echomq') return false;
    const before = this.routedBy(k);
    await this.counts.reread(k);
    const now = this.routedBy(k);
    return now.n !== before.n || now.gen !== before.gen;
  }

  /** The places of `ids` grouped by the shard that holds each job (one group, in order, while unsharded). */
  async byJob(k: LaneKeys, ids: string[]): Promise<Map<LaneKeys, number[]>> {
    const n = await this.count(k);
    if (n === 1) return new Map([[k, ids.map((_, i) => i)]]);
    const shards = await Promise.all(ids.map((id) => this.ofJob(k, id)));
    const out = new Map<LaneKeys, number[]>();
    shards.forEach((s, i) => {
      const places = out.get(s);
      if (places) places.push(i);
      else out.set(s, [i]);
    });
    return out;
  }

  /**
   * Refuses `operation` on a sharded queue (code MISCONFIGURED): one whose meaning spans the shards
   * in a way their scripts, each confined to its own slot, cannot keep (a queue-wide ceiling).
   */
  async refuse(k: LaneKeys, operation: string): Promise<void> {
    if ((await this.count(k)) > 1) {
      throw new EchoMqError(notOnShardedQueue(operation, k.queue), { code: 'MISCONFIGURED', queue: k.queue });
    }
  }

  /**
   * This process admitted work into shard `shard` of a queue of `n` shards: its own claims, should
   * they believe that shard empty, look at it again at their next call rather than after
   * DRY_REVISIT_MS (work from other processes is found then, or at once by an idle consumer's wake token).
   */
  wrote(k: LaneKeys, shard: number, n: number): void {
    const v = this.visits.get(k.queue);
    if (v !== undefined && v.shards === n) v.woke(shard);
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
}
