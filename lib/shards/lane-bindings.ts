/**
 * @internal The lanes of sharded queues that this process knows to be bound to a tenant (see
 * lua/bindLanes-1.lua): such a lane lives in its tenant's shard, not in the shard its own name
 * hashes to. What is known here may be stale: a lane not known may have been bound by another
 * process since, which its home's scripts then say; a lane that moved to another tenant is
 * recorded gone in its old tenant's shard, whose scripts then say to ask its home again (see
 * lua/moveLane-1.lua). `shards()` drops every binding, and this process forgets a queue's when it
 * reads a new map. Bounded: past MAX entries all are forgotten (and
 * learned again from the home shards).
 */
export class LaneBindings {
  static readonly MAX = 100_000;
  private readonly queues = new Map<string, Map<string, string>>();
  private size = 0;

  /** The tenant lane `group` of `queue` is known to be bound to, if any. */
  tenantOf(queue: string, group: string): string | undefined {
    return this.queues.get(queue)?.get(group);
  }

  remember(queue: string, group: string, tenant: string): void {
    if (this.size >= LaneBindings.MAX) {
      this.queues.clear();
      this.size = 0;
    }
    let lanes = this.queues.get(queue);
    if (lanes === undefined) this.queues.set(queue, lanes = new Map());
    if (!lanes.has(group)) this.size++;
    lanes.set(group, tenant);
  }

  /** Forgets one lane's binding (its shard said it moved). */
  forgetLane(queue: string, group: string): void {
    const lanes = this.queues.get(queue);
    if (lanes?.delete(group)) this.size--;
  }

  /** Forgets what was known of `queue` (its shard map changed). */
  forget(queue: string): void {
    this.size -= this.queues.get(queue)?.size ?? 0;
    this.queues.delete(queue);
  }
}
