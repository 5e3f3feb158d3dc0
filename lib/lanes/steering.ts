import { checkInt, checkName } from '../validation/validate';
import type { LaneContext } from './lane-context';

/** @internal Settings of a lane that change who is served: weight, ceiling, pause. */
export class LaneSteering {
  constructor(private readonly ctx: LaneContext) {}

  async weight(queue: string, group: unknown, weight: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    await this.ctx.scripts.weight(k, g, checkInt('weight', weight, 1, 1_000_000, k.queue));
  }

  async limit(queue: string, group: unknown, limit: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    await this.ctx.scripts.limit(k, g, limit === null ? null : checkInt('limit', limit, 1, 1_000_000, k.queue));
  }

  async pause(queue: string, group: unknown, paused: boolean): Promise<void> {
    const k = this.ctx.keysOf(queue);
    await this.ctx.scripts.pause(k, checkName('group', group, k.queue), paused);
  }
}
