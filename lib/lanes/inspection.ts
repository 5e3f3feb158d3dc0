import type { LaneInfo, LaneJob } from '../interfaces';
import { fromServerError } from '../redis/server-errors';
import { checkName, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

const MAX_COUNT = 1_000_000;

/** @internal Reads of the queue's state for people and tools: lanes, dead letters, counters. */
export class LaneInspection {
  constructor(private readonly ctx: LaneContext) {}

  async lane(queue: string, group: unknown): Promise<LaneInfo> {
    const k = this.ctx.keysOf(queue);
    return this.ctx.scripts.lane(k, checkName('group', group, k.queue));
  }

  async lanes(queue: string): Promise<LaneInfo[]> {
    return this.ctx.scripts.lanes(this.ctx.keysOf(queue), MAX_COUNT);
  }

  async dead(queue: string, opts: unknown): Promise<LaneJob[]> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<{ offset: number; count: number }>('opts', opts, k.queue);
    const offset = checkOptInt('opts.offset', o.offset, 0, MAX_COUNT, k.queue) ?? 0;
    const count = checkOptInt('opts.count', o.count, 1, MAX_COUNT, k.queue) ?? 1_000;
    return this.ctx.scripts.dead(k, offset, count);
  }

  async stats(queue: string): Promise<{ completed: number; retried: number; dead: number }> {
    const k = this.ctx.keysOf(queue);
    const h = await this.ctx.client.hgetall(k.stats).catch((err: unknown) => { throw fromServerError('stats', k.queue, k.prefix, err); });
    return { completed: Number(h.completed ?? 0), retried: Number(h.retried ?? 0), dead: Number(h.dead ?? 0) };
  }
}
