import { PAUSE_REASON_MAX_BYTES } from '../echomq.constants';
import { invalidArgument } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { LaneRate, PauseOptions } from '../interfaces';
import { checkInt, checkName, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneKeys } from '../redis/lane-keys';
import { SettingsMove } from '../shards/settings-move';
import type { LaneContext } from './lane-context';

/** @internal The longest timed pause: ten years, as the longest submit delay. */
const MAX_PAUSE_MS = 10 * 365 * 24 * 3600 * 1000;

/** @internal Settings of a lane that change who is served: weight, ceiling, rate, pause. */
export class LaneSteering {
  constructor(private readonly ctx: LaneContext) {}

  async weight(queue: string, group: unknown, weight: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const w = checkInt('weight', weight, 1, 1_000_000, k.queue);
    await this.onLane(k, g, (s) => this.ctx.scripts.weight(s, g, w));
  }

  async maxDepth(queue: string, group: unknown, n: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const depth = n === null ? null : checkInt('n', n, 1, 10_000_000, k.queue);
    await this.onLane(k, g, (s) => this.ctx.scripts.maxDepth(s, g, depth));
  }

  async limit(queue: string, group: unknown, limit: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const ceiling = limit === null ? null : checkInt('limit', limit, 1, 1_000_000, k.queue);
    await this.onLane(k, g, (s) => this.ctx.scripts.limit(s, g, ceiling));
  }

  async ordered(queue: string, group: unknown, on: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    if (typeof on !== 'boolean') {
      throw new EchoMqError(invalidArgument('on', 'must be true or false', on), { argument: 'on', queue: k.queue, group: g });
    }
    await this.onLane(k, g, (s) => this.ctx.scripts.ordered(s, g, on));
  }

  async rate(queue: string, group: unknown, rate: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    if (rate === null) return this.onLane(k, g, (s) => this.ctx.scripts.rate(s, g, null));
    if (typeof rate !== 'object' || rate === undefined || Array.isArray(rate)) {
      throw new EchoMqError(invalidArgument('rate', 'must be { max, perMs } or null', rate), { argument: 'rate', queue: k.queue, group: g });
    }
    const r = rate as Partial<LaneRate>;
    const max = checkInt('rate.max', r.max, 1, 1_000_000, k.queue);
    const perMs = checkInt('rate.perMs', r.perMs, 1, 86_400_000, k.queue);
    await this.onLane(k, g, (s) => this.ctx.scripts.rate(s, g, { max, perMs }));
  }

  async pause(queue: string, group: unknown, opts: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const o = checkOptions<PauseOptions>('opts', opts, k.queue);
    const forMs = checkOptInt('opts.forMs', o.forMs, 1, MAX_PAUSE_MS, k.queue) ?? null;
    const reason = o.reason === undefined ? '' : o.reason;
    if (typeof reason !== 'string' || Buffer.byteLength(reason, 'utf8') > PAUSE_REASON_MAX_BYTES) {
      throw new EchoMqError(invalidArgument('opts.reason', `must be a string of at most ${PAUSE_REASON_MAX_BYTES} bytes`, reason),
        { argument: 'opts.reason', queue: k.queue, group: g });
    }
    await this.onLane(k, g, (s) => this.ctx.scripts.pause(s, g, forMs, reason));
  }

  async resume(queue: string, group: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    await this.onLane(k, g, (s) => this.ctx.scripts.resume(s, g));
  }

  /** A setting of lane `g`, where the lane lives (see ShardRouter.onLane); a copy a replaced map left elsewhere is cleared. */
  private onLane<T>(k: LaneKeys, g: string, write: (shard: LaneKeys) => Promise<T>): Promise<T> {
    return this.ctx.shards.onLane(k, g, write, (from) => new SettingsMove(this.ctx).clearLane(from, g));
  }

  async pauseQueue(queue: string): Promise<void> {
    // NOTE: shard by shard; a claim may still be served by a shard not paused yet, as by a claim just
    // before the call. Every shard of the map in force: again by a new one (see ShardRouter.onEvery).
    await this.ctx.shards.onEvery(this.ctx.keysOf(queue), async (shards) => {
      for (const k of shards) await this.ctx.scripts.pauseQueue(k);
    });
  }

  async resumeQueue(queue: string): Promise<void> {
    await this.ctx.shards.onEvery(this.ctx.keysOf(queue), async (shards) => {
      for (const k of shards) await this.ctx.scripts.resumeQueue(k);
    });
  }
}
