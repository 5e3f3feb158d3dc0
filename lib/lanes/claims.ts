import { CLAIM_BATCH_MAX, PROMOTE_PER_CLAIM } from '../echomq.constants';
import type { ClaimOptions, LaneJob, WeightedClaimManyOptions, WeightedClaimOptions } from '../interfaces';
import { checkInt, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

/** @internal The longest lease a claim may ask for (a 32-bit timer's range). */
export const MAX_LEASE_MS = 2 ** 31 - 1;

/** @internal Serves work under leases: claim, claimMany, the weighted turn and many weighted turns. */
export class LaneClaims {
  constructor(private readonly ctx: LaneContext) {}

  async claimMany(queue: string, count: number, opts: unknown): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<ClaimOptions>('opts', opts, k.queue);
    return this.ctx.scripts.claim(k, this.leaseOf(k.queue, o), n, PROMOTE_PER_CLAIM);
  }

  async wclaimTurn(queue: string, opts: unknown): Promise<{ jobs: LaneJob[]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<WeightedClaimOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    return this.ctx.scripts.wclaim(k, this.leaseOf(k.queue, o), max, PROMOTE_PER_CLAIM);
  }

  async wclaimMany(queue: string, turns: number, opts: unknown): Promise<{ turns: LaneJob[][]; dueInMs: number }> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('turns', turns, 1, CLAIM_BATCH_MAX, k.queue);
    const o = checkOptions<WeightedClaimManyOptions>('opts', opts, k.queue);
    const max = checkOptInt('opts.max', o.max, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    const untilJobs = checkOptInt('opts.untilJobs', o.untilJobs, 1, CLAIM_BATCH_MAX, k.queue) ?? 0;
    return this.ctx.scripts.wclaimMany(k, this.leaseOf(k.queue, o), n, max, untilJobs, PROMOTE_PER_CLAIM);
  }

  private leaseOf(queue: string, opts: ClaimOptions): number {
    return checkOptInt('opts.leaseMs', opts.leaseMs, 1, MAX_LEASE_MS, queue) ?? this.ctx.options.leaseMs;
  }
}
