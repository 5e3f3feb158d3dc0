import { REAP_PER_CALL } from '../echomq.constants';
import type { FailOptions } from '../interfaces';
import { checkJobId, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

/**
 * @internal Brings jobs back into their lanes: expired leases (reap), due scheduled jobs (promote)
 * and dead letters an operator retries. Bounded per script call; these loop until done.
 */
export class LaneRecovery {
  constructor(private readonly ctx: LaneContext) {}

  async reap(queue: string, opts: unknown): Promise<number> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<FailOptions>('opts', opts, k.queue);
    const maxAttempts = checkOptInt('opts.maxAttempts', o.maxAttempts, 1, 1_000_000, k.queue) ?? this.ctx.options.maxAttempts;
    let total = 0;
    for (;;) {
      const n = await this.ctx.scripts.reap(k, maxAttempts, REAP_PER_CALL);
      total += n;
      if (n < REAP_PER_CALL) return total;
    }
  }

  async promote(queue: string): Promise<number> {
    const k = this.ctx.keysOf(queue);
    let total = 0;
    for (;;) {
      const { moved } = await this.ctx.scripts.promote(k, REAP_PER_CALL);
      total += moved;
      if (moved < REAP_PER_CALL) return total;
    }
  }

  async retryDead(queue: string, jobId: unknown): Promise<boolean> {
    const k = this.ctx.keysOf(queue);
    const retried = await this.ctx.scripts.retryDead(k, checkJobId('jobId', jobId, k.queue));
    return this.ctx.durability.confirm('retryDead', k.queue, retried, retried);
  }
}
