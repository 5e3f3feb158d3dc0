/**
 * @internal The counts behind `echomq_lane_served_total`: jobs this process's claim loops claimed,
 * per lane, kept only for a bounded set of lanes.
 *
 * The server's `shares()` gives each lane's claims over a sliding 60 s window, which is not a
 * counter: it falls as the window slides, and the difference of two readings is not what was served
 * between them (what left the window is unknown). So the counter is this process's own tally, as the
 * histograms are, and monotonic for as long as a lane is reported: the sum over processes is what the
 * queue served. Which lanes are reported comes from the server (the `top` lanes served most in the
 * window, the same from every process), so the cardinality stays bounded by `top`.
 *
 * Memory: at most `top` reported lanes per queue, plus the lanes claimed since the last scrape that
 * are not reported (at most `freshCap` of them; past it, a new lane is not counted until the next
 * scrape).
 */
export class ServedTally {
  /** queue → lane → claims, for the lanes reported at the last scrape, in report order. */
  private readonly reported = new Map<string, Map<string, number>>();
  /** queue → lane → claims since the last scrape, for lanes not reported then. */
  private fresh = new Map<string, Map<string, number>>();
  private freshSize = 0;

  constructor(private readonly top: number, private readonly freshCap = 10_000) {}

  /** One job claimed by this process. On the job's path: a few map operations. */
  claimed(queue: string, lane: string): void {
    if (this.top === 0) return;
    const reported = this.reported.get(queue);
    const had = reported?.get(lane);
    if (had !== undefined) {
      reported!.set(lane, had + 1);
      return;
    }
    let fresh = this.fresh.get(queue);
    const n = fresh?.get(lane);
    if (n !== undefined) {
      fresh!.set(lane, n + 1);
      return;
    }
    if (this.freshSize >= this.freshCap) return;
    if (!fresh) this.fresh.set(queue, (fresh = new Map()));
    fresh.set(lane, 1);
    this.freshSize++;
  }

  /**
   * At a scrape: the queue's reported lanes become `servedMost` (the server's lanes served most in
   * its window, most first), then, while fewer than `top`, those reported before (so a quiet queue
   * keeps its series instead of dropping them when the window empties). A lane new to the report
   * starts from its claims since the last scrape; a lane that leaves it is forgotten (if it comes
   * back, its series starts again, which Prometheus reads as a counter reset).
   */
  settle(queue: string, servedMost: readonly string[]): ReadonlyMap<string, number> {
    const before = this.reported.get(queue);
    const fresh = this.fresh.get(queue);
    const next = new Map<string, number>();
    for (const lane of servedMost) {
      if (next.size >= this.top) break;
      if (!next.has(lane)) next.set(lane, (before?.get(lane) ?? 0) + (fresh?.get(lane) ?? 0));
    }
    if (before) {
      for (const [lane, n] of before) {
        if (next.size >= this.top) break;
        if (!next.has(lane)) next.set(lane, n);
      }
    }
    this.reported.set(queue, next);
    return new Map(next);
  }

  /** After a scrape's settles: the claims of lanes still not reported are dropped. */
  endScrape(): void {
    this.fresh = new Map();
    this.freshSize = 0;
  }
}
