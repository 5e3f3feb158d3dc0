import { REAP_PER_CALL } from '../echomq.constants';
import { EchoMqError } from '../errors';
import { reapTakesNo } from '../echomq.messages';
import type { ReapOptions } from '../interfaces';
import { checkJobId, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneContext } from './lane-context';

/**
 * @internal Brings jobs back into their lanes: expired leases (reap), due scheduled jobs (promote)
 * and dead letters an operator retries. Bounded per script call; these loop until done.
 */
export class LaneRecovery {
  constructor(private readonly ctx: LaneContext) {}

  async reap(queue: string, opts: unknown): Promise<number> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<ReapOptions & Record<string, unknown>>('opts', opts, k.queue);
    // NOTE: fail's options, refused rather than ignored: a reaped lease goes back to its lane's head.
    for (const only of ['backoff', 'dead'] as const) {
      if (o[only] !== undefined) throw new EchoMqError(reapTakesNo(only), { argument: `opts.${only}`, queue: k.queue });
    }
    const maxAttempts = checkOptInt('opts.maxAttempts', o.maxAttempts, 1, 1_000_000, k.queue) ?? this.ctx.maxAttemptsOf(k.queue);
    return everyShard(await this.ctx.shards.all(k), async (shard) => {
      let total = 0;
      for (;;) {
        const n = await this.ctx.scripts.reap(shard, maxAttempts, REAP_PER_CALL);
        total += n;
        if (n < REAP_PER_CALL) return total;
      }
    });
  }

  async promote(queue: string): Promise<number> {
    const k = this.ctx.keysOf(queue);
    return everyShard(await this.ctx.shards.all(k), async (shard) => {
      let total = 0;
      for (;;) {
        const { moved } = await this.ctx.scripts.promote(shard, REAP_PER_CALL);
        total += moved;
        if (moved < REAP_PER_CALL) return total;
      }
    });
  }

  async retryDead(queue: string, jobId: unknown): Promise<boolean> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const { shard, retried } = await this.ctx.shards.byId(k, id, async (s) => ({ shard: s, retried: await this.ctx.scripts.retryDead(s, id) }), (r) => r.retried);
    return this.ctx.durability.confirm('retryDead', k.queue, retried, retried, shard);
  }
}

/**
 * Runs `each` on every shard at once and sums what they return; a shard that fails (its master
 * down) does not keep the others from being done, and its error is thrown once they are.
 */
async function everyShard(shards: LaneKeys[], each: (shard: LaneKeys) => Promise<number>): Promise<number> {
  const done = await Promise.allSettled(shards.map(each));
  const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
  if (failed) throw failed.reason;
  return done.reduce((a, d) => a + (d as PromiseFulfilledResult<number>).value, 0);
}
