import { LANE_PAGE_MAX, LANE_ROWS_PER_SCRIPT } from '../echomq.constants';
import { DEPTHS_BELOW_HEADS, isHeadEntry, type LaneKeys } from '../redis/lane-keys';
import type { FairShares, LaneHeadWait, LaneInfo, LaneJob, LanePage, QueueStats, ScanLanesOptions, SharesOptions } from '../interfaces';
import { FairnessViewScripts } from '../scripts/fairness-view-scripts';
import { checkInt, checkName, checkOptInt, checkOptions } from '../validation/validate';
import { invalidArgument } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { LaneContext } from './lane-context';

const MAX_COUNT = 1_000_000;
const CURSOR = /^[1-9][0-9]{0,19}$/;

/**
 * @internal Reads of the queue's state for people and tools: one lane, pages of lanes from the lane
 * index (scanLanes, topLanes), the ring's head (ring), a lane's next jobs (peek), dead letters, and the
 * queue's counters (stats).
 */
export class LaneInspection {
  private readonly fairness: FairnessViewScripts;

  constructor(private readonly ctx: LaneContext) {
    this.fairness = new FairnessViewScripts(ctx.scripts);
  }

  async lane(queue: string, group: unknown): Promise<LaneInfo> {
    const k = this.ctx.keysOf(queue);
    return this.ctx.scripts.lane(k, checkName('group', group, k.queue));
  }

  async lanes(queue: string): Promise<LaneInfo[]> {
    return this.ctx.scripts.lanes(this.ctx.keysOf(queue), MAX_COUNT);
  }

  async ring(queue: string, count: unknown): Promise<string[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    // NOTE: in `cost`/`time` fairness the ring's order is its virtual-time set (lua/includes/ringStep.lua);
    // one of the two is empty, but both are read while a change of fairness moves the entries over.
    const [list, byTime] = await Promise.all([
      this.ctx.read('ring', k, this.ctx.client.lrange(k.ring, 0, n - 1)),
      this.ctx.read('ring', k, this.ctx.client.zrange(k.ring + ':vt', 0, n - 1)),
    ]);
    return [...byTime, ...list].slice(0, n);
  }

  async peek(queue: string, group: unknown, count: unknown): Promise<string[]> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    return this.ctx.read('peek', k, this.ctx.client.zrange(k.lane(g), '0', String(n - 1)));
  }

  /**
   * A page of the lane index, by ZSCAN: a lane present for the whole scan is returned at least once,
   * and each call costs O(count). The cursor is ZSCAN's, checked to be one it could have returned.
   */
  async scanLanes(queue: string, opts: unknown): Promise<LanePage> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<ScanLanesOptions>('opts', opts, k.queue);
    const count = checkOptInt('opts.count', o.count, 1, LANE_PAGE_MAX, k.queue) ?? 100;
    let cursor = '0';
    if (o.cursor !== undefined) {
      if (typeof o.cursor !== 'string' || !CURSOR.test(o.cursor) || BigInt(o.cursor) >= 2n ** 64n) {
        throw new EchoMqError(invalidArgument('opts.cursor', 'must be a cursor that scanLanes returned', o.cursor), { argument: 'opts.cursor', queue: k.queue });
      }
      cursor = o.cursor;
    }
    const [next, flat] = await this.ctx.read('scanLanes', k, this.ctx.client.zscan(k.index, cursor, 'COUNT', count));
    const groups: string[] = [];
    // NOTE: the index's head entries are not lanes (a group name never holds '{').
    for (let i = 0; i < flat.length; i += 2) if (!isHeadEntry(flat[i])) groups.push(flat[i]);
    return { lanes: await this.rows(k, groups), cursor: next === '0' ? null : next };
  }

  /** The lane index, most pending first (ZREVRANGEBYSCORE below the head entries: O(log lanes + count)), then each lane's row. */
  async topLanes(queue: string, count: unknown): Promise<LaneInfo[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    const names = await this.ctx.read('topLanes', k, this.ctx.client.zrevrangebyscore(k.index, DEPTHS_BELOW_HEADS, '-inf', 'LIMIT', 0, n));
    return this.rows(k, names);
  }

  /** The `count` lanes whose head jobs have waited longest, longest first (exact; see lua/oldestLanes-1.lua). */
  async oldestLanes(queue: string, count: unknown): Promise<LaneHeadWait[]> {
    const k = this.ctx.keysOf(queue);
    return this.fairness.oldest(k, checkInt('count', count, 1, LANE_PAGE_MAX, k.queue));
  }

  /** What the lanes were served over the last minute (see lua/laneShares-4.lua). */
  async shares(queue: string, opts: unknown): Promise<FairShares> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<SharesOptions>('opts', opts, k.queue);
    return this.fairness.shares(k, checkOptInt('opts.count', o.count, 1, LANE_PAGE_MAX, k.queue) ?? 10);
  }

  /** LaneInfo rows of named lanes, LANE_ROWS_PER_SCRIPT per script call so that none runs long (50: about 0.5 ms). */
  private async rows(k: LaneKeys, groups: string[]): Promise<LaneInfo[]> {
    const out: LaneInfo[] = [];
    for (let start = 0; start < groups.length; start += LANE_ROWS_PER_SCRIPT) {
      out.push(...(await this.ctx.scripts.laneRows(k, groups.slice(start, start + LANE_ROWS_PER_SCRIPT))));
    }
    return out;
  }

  async dead(queue: string, opts: unknown): Promise<LaneJob[]> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<{ offset: number; count: number }>('opts', opts, k.queue);
    const offset = checkOptInt('opts.offset', o.offset, 0, MAX_COUNT, k.queue) ?? 0;
    const count = checkOptInt('opts.count', o.count, 1, MAX_COUNT, k.queue) ?? 1_000;
    return this.ctx.scripts.dead(k, offset, count);
  }

  /**
   * The queue's counters and sizes, in one script of constant cost. It first applies the lane timers
   * that are due (timed pause ends, rate-window reopenings), as the next claim would, so that
   * `pausedLanes` and `ringLength` agree with lane() while no consumer claims. `pending` is derived
   * from the totals (every admitted job neither completed nor cancelled is pending, scheduled, active or dead), so the
   * hot path keeps no counter of its own for it.
   */
  async stats(queue: string): Promise<QueueStats> {
    const k = this.ctx.keysOf(queue);
    const s = await this.ctx.scripts.stats(k);
    let oldest: LaneHeadWait | undefined;
    if (s.oldestDone) {
      if (s.oldestLane !== null) oldest = { group: s.oldestLane, headWaitMs: Math.max(0, s.now - s.oldestReady!) };
    } else {
      // NOTE: rare (many heads to check since the last read): oldestLanes goes on from where readStats stopped.
      const ready = new Map<string, number>(s.oldestLane !== null ? [[s.oldestLane, s.oldestReady!]] : []);
      [oldest] = await this.fairness.oldest(k, 1, { ready, now: s.now, after: s.oldestAfter });
    }
    return {
      totals: { submitted: s.submitted, completed: s.completed, retried: s.retried, dead: s.deadTotal, reaped: s.reaped, cancelled: s.cancelled },
      pending: Math.max(0, s.submitted - s.completed - s.cancelled - s.scheduled - s.active - s.dead),
      scheduled: s.scheduled,
      active: s.active,
      dead: s.dead,
      lanes: s.lanes,
      ringLength: s.ringLength,
      pausedLanes: s.pausedLanes,
      paused: s.paused,
      limit: s.limit,
      fairness: { by: s.fairness },
      completedPerSec: s.completedLastMinute / 60,
      oldestWaitMs: oldest ? oldest.headWaitMs : null,
      oldestLane: oldest ? oldest.group : null,
    };
  }
}
