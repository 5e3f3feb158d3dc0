/**
 * @internal How long a shard whose ring came back empty stays out of a call's first round of
 * claims; past it the shard is tried again like one never seen (so a shard is never starved by
 * a stale view of it, whoever filled it).
 */
export const DRY_REVISIT_MS = 100;

/** @internal How long a shard whose claim failed (its master down, a timeout) stays out of the first rounds. */
export const FAILED_REVISIT_MS = 2_000;

/**
 * @internal The fewest slots a shard gets on a visit (unless the call asks for fewer): a call costs
 * the server a fixed part on top of its jobs (parsing, the due-work checks, a round trip's
 * syscalls), so a claim of 32 cut into six calls of 5 cost 1.8× the server CPU per job of one call
 * of 32 (the bench's `shards` scenario). Whole chunks, spread by the same credits, keep the shares
 * across calls and make few calls.
 */
export const MIN_CHUNK = 16;

/**
 * @internal How one process spreads its claims over a sharded queue's shards: slot by slot, by smooth
 * weighted round robin over the shards a call has not asked yet, each weighed by the entries of its
 * ring (its serviceable lanes) as its last claim reply told. Fairness within a shard is its ring's;
 * across shards this makes a lane's share about one n-th of the slots (n: the queue's serviceable
 * lanes), whichever shard it is in. The credits start at a random phase per process, so that
 * processes do not visit the shards in lockstep, and are capped at one round.
 */
export class ShardVisits {
  private readonly ring: number[];
  private readonly credit: number[];
  private readonly dryAt: number[];
  private readonly failedAt: number[];

  constructor(readonly shards: number, random: () => number = Math.random) {
    this.ring = new Array<number>(shards).fill(-1);
    this.credit = Array.from({ length: shards }, () => random());
    this.dryAt = new Array<number>(shards).fill(0);
    this.failedAt = new Array<number>(shards).fill(-Infinity);
  }

  /**
   * How many of `count` claims to send to each shard not in `asked`: by the shards' weights (their
   * ring's entries; 1 while unknown or once DRY_REVISIT_MS past coming back empty), a chunk of
   * `chunk` slots at a time (the last one what is left). When every one of them is believed empty
   * they are all tried, weight 1 each. Empty when every shard was asked.
   */
  plan(count: number, asked: ReadonlySet<number>, now: number, chunk = MIN_CHUNK): Map<number, number> {
    const out = new Map<number, number>();
    const open: number[] = [];
    const weights: number[] = [];
    for (let i = 0; i < this.shards; i++) {
      if (asked.has(i)) continue;
      open.push(i);
      weights.push(this.weightOf(i, now));
    }
    if (open.length === 0) return out;
    if (weights.every((w) => w <= 0)) weights.fill(1);
    const total = weights.reduce((a, b) => a + b, 0);
    for (let left = count; left > 0;) {
      const size = Math.min(Math.max(1, chunk), left);
      let best = -1;
      for (let j = 0; j < open.length; j++) {
        if (weights[j] === 0) continue;
        this.credit[open[j]] += weights[j] * size;
        if (best < 0 || this.credit[open[j]] > this.credit[open[best]]) best = j;
      }
      this.credit[open[best]] -= total * size;
      out.set(open[best], (out.get(open[best]) ?? 0) + size);
      left -= size;
    }
    const cap = total * Math.max(1, chunk);
    for (const i of open) this.credit[i] = Math.max(-cap, Math.min(cap, this.credit[i]));
    return out;
  }

  /** What a claim on shard `i` told: it was asked for `asked` jobs, served `served`, and its ring holds `ringSize` entries after (-1: not told). */
  saw(i: number, asked: number, served: number, ringSize: number, now: number): void {
    if (ringSize >= 0) this.ring[i] = ringSize;
    else if (served < asked) this.ring[i] = 0;
    if (this.ring[i] === 0) this.dryAt[i] = now;
  }

  /** A claim on shard `i` failed: it gets no slot for FAILED_REVISIT_MS unless every other shard looks empty. */
  failed(i: number, now: number): void {
    this.failedAt[i] = now;
  }

  /** Marks shard `i` as having work (a wake token came from it). */
  woke(i: number): void {
    if (this.ring[i] === 0) this.ring[i] = -1;
  }

  private weightOf(i: number, now: number): number {
    if (now - this.failedAt[i] < FAILED_REVISIT_MS) return 0;
    const ring = this.ring[i];
    if (ring > 0) return ring;
    if (ring < 0) return 1;
    return now - this.dryAt[i] >= DRY_REVISIT_MS ? 1 : 0;
  }
}
