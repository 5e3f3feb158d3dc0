import { CLAIM_BATCH_MAX, CLAIM_CHUNK, PROMOTE_PER_CLAIM } from '../echomq.constants';
import type { ClaimOptions, LaneJob, WeightedClaimManyOptions, WeightedClaimOptions } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import { checkInt, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

/**
 * @internal How many more calls a batch claim makes to fill the places of jobs it dead-lettered
 * (payloads that are not JSON), so that a short batch still means that the ring ran dry.
 */
const REFILLS = 4;

/** @internal The longest lease a claim may ask for (a 32-bit timer's range). */
export const MAX_LEASE_MS = 2 ** 31 - 1;

/** @internal Serves work under leases: claim, claimMany, the weighted turn and many weighted turns. */
export class LaneClaims {
  constructor(private readonly ctx: LaneContext) {}

  async claimMany(queue: string, count: number, opts: unknown): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<ClaimOptions>('opts', opts, k.queue);
    const leaseMs = this.leaseOf(k.queue, o);
    const shards = await this.ctx.shards.count(k);
    if (shards === 1) return this.claimIn(k, n, leaseMs, false);
    const got = await this.acrossShards(k, shards, n, (s, want) => this.claimIn(s, want, leaseMs, true)
      .then((r) => ({ ...r, turns: r.jobs.map((j) => [j]) })));
    return { jobs: got.turns.flat(), dueInMs: got.dueInMs };
  }

  async wclaimTurn(queue: string, opts: unknown): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<WeightedClaimOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const leaseMs = this.leaseOf(k.queue, o);
    const shards = await this.ctx.shards.count(k);
    if (shards === 1) {
      const { jobs, dueInMs } = await this.ctx.scripts.wclaim(k, leaseMs, max, PROMOTE_PER_CLAIM);
      return { jobs, dueInMs };
    }
    // NOTE: one turn, so one shard serves it: the plan of one slot picks it.
    const got = await this.acrossShards(k, shards, 1, (s) => this.wclaimIn(s, 1, max, 0, leaseMs, true), (turns) => turns.length);
    return { jobs: got.turns[0] ?? [], dueInMs: got.dueInMs };
  }

  async wclaimMany(queue: string, turns: number, opts: unknown): Promise<{ turns: LaneJob[][]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('turns', turns, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<WeightedClaimManyOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const untilJobs = checkOptInt('opts.untilJobs', o.untilJobs, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const leaseMs = this.leaseOf(k.queue, o);
    const shards = await this.ctx.shards.count(k);
    if (shards === 1) return this.wclaimIn(k, n, max, untilJobs, leaseMs, false);
    // NOTE: with untilJobs the slots are jobs (a claim loop's free slots), each shard's share of them
    // its own untilJobs; else they are turns.
    return this.acrossShards(k, shards, untilJobs > 0 ? untilJobs : n,
      (s, want) => this.wclaimIn(s, want, max, untilJobs > 0 ? want : 0, leaseMs, true),
      untilJobs > 0 ? (got) => got.reduce((a, t) => a + t.length, 0) : (got) => got.length);
  }

  /** claimMany on one shard (or an unsharded queue): CLAIM_CHUNK jobs per script call. */
  private async claimIn(k: LaneKeys, n: number, leaseMs: number, ringSize: boolean): Promise<{ jobs: LaneJob[]; dueInMs: number; ringSize: number }> {
    const jobs: LaneJob[] = [];
    let dueInMs = -1;
    let size = -1;
    let refills = 0;
    // NOTE: a chunk at a time, so no one script runs long; a short chunk means the ring ran dry,
    // unless it dead-lettered jobs (payloads that are not JSON), whose places it then asks again.
    try {
      while (jobs.length < n) {
        const want = Math.min(CLAIM_CHUNK, n - jobs.length);
        const got = await this.ctx.scripts.claim(k, leaseMs, want, PROMOTE_PER_CLAIM, ringSize);
        for (const job of got.jobs) jobs.push(job);
        dueInMs = got.dueInMs;
        size = got.ringSize ?? -1;
        if (got.jobs.length < want && (got.buried === 0 || refills++ >= REFILLS)) break;
      }
    } catch (err) {
      this.handBack(k, jobs);
      throw err;
    }
    return { jobs, dueInMs, ringSize: size };
  }

  /**
   * wclaimMany on one shard (or an unsharded queue), in script calls that each stop after the turn
   * that brings them CLAIM_CHUNK jobs (turns are served whole, so the calls serve the same turns as
   * one would), with what is left of the call's 1,000 jobs passed on, so the turn that would pass them
   * is cut where one call would cut it. Dead-lettered jobs (see LaneScripts.served) count against
   * the 1,000 but not against `untilJobs`: their places are asked again, by at most REFILLS calls
   * (as claimIn's).
   */
  private async wclaimIn(k: LaneKeys, n: number, max: number, untilJobs: number, leaseMs: number, ringSize: boolean):
    Promise<{ turns: LaneJob[][]; dueInMs: number; ringSize: number }> {
    const got: LaneJob[][] = [];
    let turnsLeft = n;
    let refills = 0;
    let jobs = 0;
    let served = 0;
    let dueInMs = -1;
    let size = -1;
    try {
      while (turnsLeft > 0 && served < CLAIM_BATCH_MAX && (untilJobs === 0 || jobs < untilJobs)) {
        const until = Math.min(CLAIM_CHUNK, untilJobs > 0 ? untilJobs - jobs : CLAIM_CHUNK);
        const r = await this.ctx.scripts.wclaimMany(k, leaseMs, turnsLeft, max, until, PROMOTE_PER_CLAIM, ringSize, CLAIM_BATCH_MAX - served);
        const usable = r.turns.reduce((a, t) => a + t.length, 0);
        for (const turn of r.turns) got.push(turn);
        jobs += usable;
        served += usable + r.buried;
        // NOTE: with untilJobs the caller counts jobs (a claim loop's free slots): a dead-lettered
        // job's place is asked again, with a turn of its own.
        turnsLeft -= r.turns.length - (untilJobs > 0 && refills < REFILLS ? r.buried : 0);
        if (r.buried > 0) refills += 1;
        dueInMs = r.dueInMs;
        size = r.ringSize ?? -1;
        // NOTE: a call that served fewer than it was asked ran out of turns, of serviceable lanes or
        // of the queue's ceiling: the next would serve nothing more.
        if (usable + r.buried < until) break;
      }
    } catch (err) {
      this.handBack(k, got.flat());
      throw err;
    }
    return { turns: got, dueInMs, ringSize: size };
  }

  /**
   * Claims `slots` over a sharded queue: the process's visits (shards/shard-visits.ts) split them
   * over the shards, one call to each chosen shard, all at once; the slots left are split again over
   * the shards that have not come back short in this call, until the slots are filled or every shard
   * came back short (so a short answer still means that nothing more was serviceable). `used` counts the
   * slots an answer filled (jobs, or turns). A shard whose call fails (its master down, say) is left
   * out of the visits for a while and the others' jobs are returned; only when nothing was served
   * and a call failed does the error reach the caller.
   */
  private async acrossShards(k: LaneKeys, shards: number, slots: number,
    claimOn: (shard: LaneKeys, want: number) => Promise<{ turns: LaneJob[][]; dueInMs: number; ringSize: number }>,
    used: (turns: LaneJob[][]) => number = (turns) => turns.length): Promise<{ turns: LaneJob[][]; dueInMs: number }> {
    const visits = this.ctx.shards.visitsOf(k, shards);
    const asked = new Set<number>();
    const turns: LaneJob[][] = [];
    let filled = 0;
    let dueInMs = -1;
    let failure: unknown;
    // NOTE: the shards believed empty and due a look are read (their rings' sizes) beside the first
    // round, taking no slot: a shard another process filled is weighed from the next call on.
    const looks = visits.due(Date.now()).map((i) => this.ctx.scripts.ringSize(k.shardKeys(i))
      .then((size) => visits.saw(i, 0, 0, size, Date.now()), () => visits.failed(i, Date.now())));
    while (filled < slots) {
      const plan = visits.plan(slots - filled, asked, Date.now());
      if (plan.size === 0) break;
      const answers = await Promise.allSettled([...plan].map(async ([i, want]) => {
        try {
          const r = await claimOn(k.shardKeys(i), want);
          // NOTE: a shard that filled what it was asked may hold more: only a short one is done with.
          if (used(r.turns) < want) asked.add(i);
          visits.saw(i, want, used(r.turns), r.ringSize, Date.now());
          for (const job of r.turns.flat()) this.ctx.shards.jobs.remember(k.queue, job.id, i);
          return r;
        } catch (err) {
          asked.add(i);
          visits.failed(i, Date.now());
          throw err;
        }
      }));
      for (const a of answers) {
        if (a.status === 'rejected') {
          failure ??= a.reason;
          continue;
        }
        for (const t of a.value.turns) turns.push(t);
        filled += used(a.value.turns);
        if (a.value.dueInMs >= 0 && (dueInMs < 0 || a.value.dueInMs < dueInMs)) dueInMs = a.value.dueInMs;
      }
    }
    await Promise.all(looks);
    if (failure !== undefined && turns.length === 0) throw failure;
    return { turns, dueInMs };
  }

  /**
   * Hands back the jobs a call had leased before a later round trip of it failed (callTimeoutMs):
   * the caller gets the error, not the jobs, so nobody would run them until their leases end.
   */
  private handBack(k: LaneKeys, jobs: LaneJob[]): void {
    for (const job of jobs) void this.ctx.scripts.release(k, job.id, job.attempt).catch(() => undefined);
  }

  private leaseOf(queue: string, opts: ClaimOptions): number {
    return checkOptInt('opts.leaseMs', opts.leaseMs, 1, MAX_LEASE_MS, queue) ?? this.ctx.options.leaseMs;
  }
}
