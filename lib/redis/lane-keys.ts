import { plainTag } from '../shards/shard-tags';

/**
 * @internal The one place Redis keys are built. Every key of queue `q` is `${prefix}:{q}:…`, so a
 * queue lives in one hash slot; the group and the job id go after the tag. A sharded queue's shard
 * i >= 1 is the same keyspace under the tag `{q{i}` or `{q{i.s}` (its own slot, see
 * shards/shard-tags.ts; queue names hold no '{', so no queue's tag is ever another's shard), and
 * shard 0 keeps `{q}`: the keys of an unsharded queue.
 */
export class LaneKeys {
  /** `${prefix}:{queue}:`, the base every key of the queue starts with (scripts derive from it). */
  readonly base: string;
  readonly ring: string;
  readonly ringSet: string;
  readonly weight: string;
  readonly limit: string;
  readonly active: string;
  readonly gactive: string;
  readonly paused: string;
  readonly schedule: string;
  readonly dead: string;
  readonly wake: string;
  readonly dedup: string;
  readonly stats: string;
  /** Every lane with work or settings, scored by its pending depth (scans, top lanes, counts). */
  readonly index: string;
  /** The pub/sub channel on which finished jobs that someone waits for are announced (not a key). */
  readonly doneChannel: string;
  /** Rate ceilings of lanes: group -> "max perMs". */
  readonly rate: string;
  /** Pause details of lanes: group -> "pausedUntil|reason" (pausedUntil empty when untimed). */
  readonly pauseInfo: string;
  /** Lane timers (timed pause ends `p:<group>`, rate-window reopenings `r:<group>`), scored by due time. */
  readonly timers: string;
  /** The queue's meta hash: field `paused` is the queue-wide pause (where the EchoMQ reference keeps it). */
  readonly meta: string;
  /** The tenants that have lanes with jobs or settings (a set; see lua/includes/laneRing.lua). */
  readonly tenants: string;
  /** The flat pending set of group-less jobs (the EchoMQ reference's plain queue; compat mode keeps them there). */
  readonly flatPending: string;
  /** The processes listening to the queue's events: token -> 1, expiring unless renewed (see includes/queueEvent). */
  readonly listeners: string;
  /** The pub/sub channel of the queue's job events, published only while `listeners` exists (not a key). */
  readonly eventsChannel: string;
  /** Lane depth ceilings (maxDepth): group -> n (see lua/includes/laneDepth.lua). */
  readonly depth: string;
  /** Delayed submits not yet due, per lane: group -> count (what a maxDepth counts besides the lane). */
  readonly delayed: string;
  /** Scheduled and dead jobs, per lane: group -> count (they hold the lane's tenant; see lua/includes/laneParked.lua). */
  readonly parked: string;
  /** Ordered lanes: group -> the lane's own ceiling, '' for none (see lua/includes/orderedLane.lua). */
  readonly ordered: string;

  /** `${prefix}:{q}:shards`: the queue's shard count (a hash, field `n`; kept in shard 0, absent on a queue never sharded). */
  readonly shards: string;
  /** `${prefix}:{q}:shardgen`: the shard's fence, the gen of the map its submits must come by (see lua/setShards). */
  get shardGen(): string {
    return this.base + 'shardgen';
  }
  /** `${prefix}:{q}:resharding`: the lock a change of the shard count holds while it runs (shard 0; see lua/setShards). */
  get resharding(): string {
    return this.base + 'resharding';
  }
  /**
   * `${prefix}:{q}:bound`: on a sharded queue, the lanes whose home is this shard (the shard their own
   * name hashes to) bound to a tenant, lane -> tenant (a hash): such a lane lives in its tenant's shard.
   */
  readonly bound: string;
  /** `${prefix}:{q}:unbound`: on a sharded queue, the lanes gone from a tenant of this shard, lane -> that tenant (see lua/moveLane-1.lua). */
  readonly unbound: string;
  /** `${prefix}:{q}:boundv`: beside `bound`, lane -> its binding's version, new at every write of it (see lua/bindLanes-1.lua). */
  get boundVersions(): string {
    return this.base + 'boundv';
  }
  /** What goes between the braces: the queue's name, or `q{i` for its shard i >= 1. */
  readonly tag: string;

  constructor(readonly prefix: string, readonly queue: string, readonly shard = 0, tag?: string) {
    this.tag = tag ?? plainTag(queue, shard);
    this.base = `${prefix}:{${this.tag}}:`;
    this.ring = this.base + 'ring';
    this.ringSet = this.base + 'ringset';
    this.weight = this.base + 'gweight';
    this.limit = this.base + 'glimit';
    this.gactive = this.base + 'gactive';
    this.active = this.base + 'active';
    this.paused = this.base + 'paused';
    this.schedule = this.base + 'schedule';
    this.dead = this.base + 'dead';
    this.wake = this.base + 'wake';
    this.dedup = this.base + 'dedup';
    this.stats = this.base + 'stats';
    this.index = this.base + 'lanes';
    this.doneChannel = this.base + 'done';
    this.rate = this.base + 'grate';
    this.pauseInfo = this.base + 'gpause';
    this.timers = this.base + 'timers';
    this.meta = this.base + 'meta';
    this.flatPending = this.base + 'pending';
    this.listeners = this.base + 'listeners';
    this.eventsChannel = this.base + 'events';
    this.tenants = this.base + 'tenants';
    this.depth = this.base + 'gdepth';
    this.delayed = this.base + 'gdelayed';
    this.parked = this.base + 'gparked';
    this.ordered = this.base + 'gordered';
    this.shards = this.base + 'shards';
    this.bound = this.base + 'bound';
    this.unbound = this.base + 'unbound';
  }

  private readonly otherShards = new Map<number, LaneKeys>();
  /** The shards' tags as the queue's shard map stores them (see shards/shard-tags.ts); unset: the plain ones. */
  private shardTags?: readonly string[];

  /** The keys of shard `i` of the same queue (shard 0 is the queue's own keys), built once each. */
  shardKeys(i: number): LaneKeys {
    if (i === this.shard) return this;
    let keys = this.otherShards.get(i);
    if (keys === undefined) {
      keys = new LaneKeys(this.prefix, this.queue, i, this.shardTags?.[i]);
      this.otherShards.set(i, keys);
    }
    return keys;
  }

  /** Takes the shards' tags the queue's shard map holds (undefined: the plain ones); on shard 0's keys. */
  useShardTags(tags: readonly string[] | undefined): void {
    if ((tags ?? []).join('\n') === (this.shardTags ?? []).join('\n')) return;
    this.shardTags = tags;
    this.otherShards.clear();
  }

  /** The lane (pending set) of a group. */
  lane(group: string): string {
    return `${this.base}g:${group}:pending`;
  }

  /** The sliding log of a rate-limited lane's claim times (newest first, at most `max` long). */
  rateLog(group: string): string {
    return `${this.base}g:${group}:rate`;
  }

  /** A lane's tenant (a string), set while the lane has one (see lua/includes/laneRing.lua). */
  laneTenant(group: string): string {
    return `${this.base}g:${group}:tenant`;
  }

  /** A tenant's own ring of its serviceable lanes (a list; the queue's ring holds the tenant's entry). */
  tenantRing(tenant: string): string {
    return `${this.base}t:${tenant}:ring`;
  }

  /** The members of a tenant's ring, for O(1) membership (lanes its rate parked stay in it). */
  tenantRingSet(tenant: string): string {
    return `${this.base}t:${tenant}:ringset`;
  }

  /** A tenant's settings and active count (a hash: weight, limit, active, paused, until, reason). */
  tenantInfo(tenant: string): string {
    return `${this.base}t:${tenant}:info`;
  }

  /** A tenant's lanes that hold jobs or settings (a set). */
  tenantLanes(tenant: string): string {
    return `${this.base}t:${tenant}:lanes`;
  }

  /** The row of a job. */
  job(id: string): string {
    return `${this.base}job:${id}`;
  }

  /** Where a kept completed job's dedup key points at it (field `id`), expiring with its row. */
  keptDedup(dedupKey: string): string {
    return `${this.base}kept:${dedupKey}`;
  }

  /** A pattern matching every key of this shard (for tests and tools; never for scripts). */
  pattern(): string {
    return `${this.prefix}:{${this.tag.replace(/[*?[\]\\]/g, '\\$&')}}:*`;
  }

  /**
   * A SCAN MATCH pattern for the keys of every shard of the queue, of any shard count (shard 0's
   * `{q}` and shard i's `{q{i…}`): one walk of the server finds them all ({@link shardBaseOf} sorts them).
   */
  queuePattern(): string {
    return `${this.prefix}:{${this.queue.replace(/[*?[\]\\]/g, '\\$&')}[{}]*`;
  }

  /** The base (`${prefix}:{tag}:`) of a key that {@link queuePattern} matched, null for one of another shape. */
  shardBaseOf(key: string): string | null {
    const end = key.indexOf('}:', this.prefix.length + 2 + this.queue.length);
    return end < 0 ? null : key.slice(0, end + 2);
  }
}

/** @internal A tenant's entry on the queue's ring: '{t}' cannot open a group name (no '{' in names). */
export const tenantEntry = (tenant: string): string => `{t}${tenant}`;

/**
 * @internal The lane index's head entries (lua/includes/headEntry.lua): '{h}' + group, scored from 10^12
 * up; the lanes' depths stay below, so `DEPTHS_BELOW_HEADS` is the exclusive upper bound of the lanes.
 */
export const isHeadEntry = (member: string): boolean => member.startsWith('{h}');
export const DEPTHS_BELOW_HEADS = '(1000000000000';

/** @internal The hash of the job-id node leases, one per prefix (see lua/nodeLease-1.lua). */
export const nodeLeaseKey = (prefix: string): string => `${prefix}:node-leases`;
