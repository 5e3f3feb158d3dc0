import { fairnessInCompat, invalidArgument } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { FairnessBy, FairnessOptions } from '../interfaces';
import { FairnessScripts } from '../scripts/fairness-scripts';
import { checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

const MODES: readonly FairnessBy[] = ['jobs', 'cost', 'time'];

/** @internal What a lane's share of the queue counts: jobs (the ring's turns), declared cost, or measured time. */
export class LaneFairness {
  private readonly scripts: FairnessScripts;

  constructor(private readonly ctx: LaneContext) {
    this.scripts = new FairnessScripts(ctx.scripts);
  }

  async set(queue: string, opts: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<FairnessOptions>('opts', opts, k.queue);
    if (!MODES.includes(o.by as FairnessBy)) {
      throw new EchoMqError(invalidArgument('opts.by', "must be 'jobs', 'cost' or 'time'", o.by), { argument: 'opts.by', queue: k.queue });
    }
    const by = o.by as FairnessBy;
    // NOTE: the reference rotates the ring list and would never see the virtual-time order.
    if (by !== 'jobs' && this.ctx.options.compat === 'echomq') {
      throw new EchoMqError(fairnessInCompat(by), { code: 'MISCONFIGURED', argument: 'opts.by', queue: k.queue });
    }
    // NOTE: every shard of the map in force: again by a new one (see ShardRouter.onEvery).
    await this.ctx.shards.onEvery(k, async (shards) => {
      for (const shard of shards) await this.scripts.set(shard, by);
    });
  }
}
