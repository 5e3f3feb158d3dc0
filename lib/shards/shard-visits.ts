/**
 * @internal How often the ring of a shard that came back empty is read again while the others are
 * served (see due()): so a shard filled by another process is found within about this long, even by
 * a process that never idles (an idle one hears the shard's wake token at once).
 */
export const DRY_REVISIT_MS = 100;

/** @internal How long a shard whose claim failed (its master down, a timeout) stays out of the first rounds. */
export const FAILED_REVISIT_MS = 2_000;

/**
 * @internal How a call's slots are cut into the chunks one shard gets on a visit: about the queue's
 * serviceable lanes ÷ (CHUNK_SHARE × shards), at least 1 and at most the call. A call costs the
 * server a fixed part on top of its jobs (parsing, the due-work checks, a round trip's syscalls): a
 * claim of 32 cut in six calls of 5 cost 1.8× the server CPU per job of one call of 32 (the bench's
 * `shards` scenario, 1,051 lanes). Big chunks make few calls; over few lanes they would let a shard's
 * ring turn many times before the others are visited, so the chunk shrinks with the lanes: in a
 * model of the bench (4 claimers of 32) δ stayed at or below 0.46 cycles from 100 to 1,000 lanes.
 */
export const CHUNK_SHARE = 4;

/**
 * @internal How one process spreads its claims over a sharded queue's shards: chunk by chunk (see
 * CHUNK_SHARE), by smooth weighted round robin over the shards a call has not asked yet, each weighed
 * by the entries of its ring (its serviceable lanes) as its last claim reply (or a read of it) told. Fairness within a shard is its ring's;
 * across shards this makes a lane's share about one n-th of the slots (n: the queue's serviceable
 * lanes), whichever shard it is in. The credits start at a random phase per process, so that
 * processes do not visit the shards in lockstep, and are capped at one round.
 */
export class ShardVisits {
  private readonly ring: number[];
  private readonly credit: number[];
  /** When a shard believed empty may be probed next (host clock, ms). */
  private readonly probeAt: number[];
  private readonly failedAt: number[];

  constructor(readonly shards: number, random: () => number = Math.random) {
    this.ring = new Array<number>(shards).fill(-1);
    this.credit = Array.from({ length: shards }, () => random());
    this.probeAt = new Array<number>(shards).fill(0);
    this.failedAt = new Array<number>(shards).fill(-Infinity);
  }

  /**
   * How many of `count` claims to send to each shard not in `asked`: by the shards' weights (their
   * ring's entries; while unknown, the known ones' mean), a chunk at a time (see CHUNK_SHARE, or
   * `chunkSize`; the last chunk what is left). When every open shard is believed empty they are
   * all tried, weight 1 each. Empty when every shard was asked.
   */
  plan(count: number, asked: ReadonlySet<number>, now: number, chunkSize?: number): Map<number, number> {
    const out = new Map<number, number>();
    const open: number[] = [];
    const weights: number[] = [];
    let left = count;
    // NOTE: a shard not seen yet weighs what the seen ones weigh on average: weighed 1 beside rings
    // of hundreds, it would wait many calls for its first turn.
    const known = this.ring.filter((r) => r > 0);
    const unseen = known.length > 0 ? Math.max(1, Math.round(known.reduce((a, b) => a + b, 0) / known.length)) : 1;
    for (let i = 0; i < this.shards; i++) {
      if (asked.has(i)) continue;
      open.push(i);
      weights.push(now - this.failedAt[i] < FAILED_REVISIT_MS ? 0 : this.ring[i] < 0 ? unseen : this.ring[i]);
    }
    if (open.length === 0) return out;
    if (weights.every((w) => w <= 0)) weights.fill(1);
    const total = weights.reduce((a, b) => a + b, 0);
    const chunk = chunkSize ?? Math.min(count, Math.max(1, Math.floor(total / (CHUNK_SHARE * this.shards))));
    while (left > 0) {
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

  /**
   * The shards whose ring should be read now (a read, not a claim: it takes no slot): those not
   * seen yet, and those believed empty DRY_REVISIT_MS after they came back empty, or at once after
   * a wake token from them. Their sizes go to saw(), and the next plan weighs them.
   */
  due(now: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.shards; i++) {
      if (this.ring[i] > 0 || now < this.probeAt[i] || now - this.failedAt[i] < FAILED_REVISIT_MS) continue;
      this.probeAt[i] = now + DRY_REVISIT_MS;
      out.push(i);
    }
    return out;
  }

  /** What a claim on shard `i` told: it was asked for `asked` jobs, served `served`, and its ring holds `ringSize` entries after (-1: not told). */
  saw(i: number, asked: number, served: number, ringSize: number, now: number): void {
    const wasEmpty = this.ring[i] === 0;
    if (ringSize >= 0) this.ring[i] = ringSize;
    else if (served < asked) this.ring[i] = 0;
    if (this.ring[i] === 0 && !wasEmpty) this.probeAt[i] = now + DRY_REVISIT_MS;
  }

  /** A claim on shard `i` failed: it gets no slot for FAILED_REVISIT_MS unless every other shard looks empty. */
  failed(i: number, now: number): void {
    this.failedAt[i] = now;
  }

  /** Shard `i` sent a wake token: a shard believed empty is probed at the next call. */
  woke(i: number): void {
    this.probeAt[i] = 0;
  }

}
