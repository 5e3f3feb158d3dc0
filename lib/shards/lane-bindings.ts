/**
 * @internal The lanes of sharded queues that this process knows to be bound to a tenant (see
 * lua/bindLanes-1.lua): such a lane lives in its tenant's shard, not in the shard its own name
 * hashes to. A binding is fixed while the queue keeps its shard map (`shards()` drops them all
 * when it stores a new one, and this process forgets a queue's when it reads a new map), so one
 * known here is not stale; a lane not known here may have been bound by another process since,
 * which its home shard's scripts then say. Bounded: past MAX entries all are forgotten (and
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

  /** Forgets what was known of `queue` (its shard map changed). */
  forget(queue: string): void {
    this.size -= this.queues.get(queue)?.size ?? 0;
    this.queues.delete(queue);
  }
}
