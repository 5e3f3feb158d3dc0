/**
 * @internal The lanes of sharded queues that this process knows to be bound to a tenant (see
 * lua/bindLanes-1.lua): such a lane lives in its tenant's shard, not in the shard its own name
 * hashes to. What is known here may be stale: a lane not known may have been bound by another
 * process since, which its home's scripts then say; a lane that moved to another tenant is
 * recorded gone in its old tenant's shard, whose scripts then say to ask its home again (see
 * lua/moveLane-1.lua). `shards()` moves each binding to the lane's new home (shards/bindings-move.ts),
 * and this process forgets a queue's when it reads a new map; one it learns by the old map after that
 * is not remembered. Bounded: past MAX entries all are forgotten (and
 * learned again from the home shards).
 */
export class LaneBindings {
  static readonly MAX = 100_000;
  private readonly queues = new Map<string, Map<string, string>>();
  /** Per queue, the gen of the shard map what is known was learnt by (see remember). */
  private readonly gens = new Map<string, string>();
  private size = 0;

  /** The tenant lane `group` of `queue` is known to be bound to, if any. */
  tenantOf(queue: string, group: string): string | undefined {
    return this.queues.get(queue)?.get(group);
  }

  /**
   * Remembers lane `group` bound to `tenant`, as learnt (or bound) by the shard map of gen `gen`.
   * Nothing when that is not known (undefined) or the queue's map has changed since: a binding made
   * by the old map, in the lane's old home, answered after this process read the new one; the new
   * home must be asked, or bound, again.
   */
  remember(queue: string, group: string, tenant: string, gen: string | undefined): void {
    if (gen === undefined) return;
    const known = this.gens.get(queue);
    if (known === undefined) {
      // NOTE: bounded, as the shard counts are (ShardCounts): a caller cycling through queue names cannot grow it without end.
      if (this.gens.size > 10_000) this.gens.clear();
      this.gens.set(queue, gen);
    } else if (known !== gen) return;
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

  /** Forgets what was known of `queue`: its shard map changed, to one of gen `gen`. */
  forget(queue: string, gen: string): void {
    this.size -= this.queues.get(queue)?.size ?? 0;
    this.queues.delete(queue);
    this.gens.set(queue, gen);
  }
}
