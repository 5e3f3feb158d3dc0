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
    const jobs: LaneJob[] = [];
    let dueInMs = -1;
    let refills = 0;
    // NOTE: a chunk at a time, so no one script runs long; a short chunk means the ring ran dry,
    // unless it dead-lettered jobs (payloads that are not JSON), whose places it then asks again.
    try {
      while (jobs.length < n) {
        const want = Math.min(CLAIM_CHUNK, n - jobs.length);
        const got = await this.ctx.scripts.claim(k, leaseMs, want, PROMOTE_PER_CLAIM);
        for (const job of got.jobs) jobs.push(job);
        dueInMs = got.dueInMs;
        if (got.jobs.length < want && (got.buried === 0 || refills++ >= REFILLS)) break;
      }
    } catch (err) {
      this.handBack(k, jobs);
      throw err;
    }
    return { jobs, dueInMs };
  }

  async wclaimTurn(queue: string, opts: unknown): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<WeightedClaimOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const { jobs, dueInMs } = await this.ctx.scripts.wclaim(k, this.leaseOf(k.queue, o), max, PROMOTE_PER_CLAIM);
    return { jobs, dueInMs };
  }

  async wclaimMany(queue: string, turns: number, opts: unknown): Promise<{ turns: LaneJob[][]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('turns', turns, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<WeightedClaimManyOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const untilJobs = checkOptInt('opts.untilJobs', o.untilJobs, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const leaseMs = this.leaseOf(k.queue, o);
    let { turns: got, dueInMs, buried } = await this.ctx.scripts.wclaimMany(k, leaseMs, n, max, untilJobs, PROMOTE_PER_CLAIM);
    // NOTE: with untilJobs the caller counts jobs (a claim loop's free slots), else turns.
    const missing = (): number => (untilJobs > 0 ? untilJobs - got.reduce((a, t) => a + t.length, 0) : n - got.length);
    try {
      for (let i = 0; i < REFILLS && buried > 0 && missing() > 0; i++) {
        const want = missing();
        const more = await this.ctx.scripts.wclaimMany(k, leaseMs, want, max, untilJobs > 0 ? want : 0, PROMOTE_PER_CLAIM);
        got = got.concat(more.turns);
        ({ dueInMs, buried } = more);
      }
    } catch (err) {
      this.handBack(k, got.flat());
      throw err;
    }
    return { turns: got, dueInMs };
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
