import { LANE_PAGE_MAX, LANE_ROWS_PER_SCRIPT } from '../echomq.constants';
import { isHeadEntry, type LaneKeys } from '../redis/lane-keys';
import { deepestLanes } from './deepest-lanes';
import type { FairShares, LaneHeadWait, LaneInfo, LaneJob, LanePage, QueueStats, ScanLanesOptions, SharesOptions } from '../interfaces';
import { FairnessViewScripts } from '../scripts/fairness-view-scripts';
import { checkInt, checkName, checkOptInt, checkOptions } from '../validation/validate';
import { invalidArgument } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { mergeTop } from '../shards/merge-top';
import type { LaneContext } from './lane-context';

const MAX_COUNT = 1_000_000;
const CURSOR = /^[1-9][0-9]{0,19}$/;
const SHARD_CURSOR = /^([0-9]{1,2})\.([0-9]{1,20})$/;

/** Dead letters read per script: 1,000 rows in one measured up to 9 ms on a busy 100,000-lane queue. */
const DEAD_PER_SCRIPT = 250;

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
    const g = checkName('group', group, k.queue);
    return this.ctx.scripts.lane(await this.ctx.shards.ofLane(k, g), g);
  }

  async lanes(queue: string): Promise<LaneInfo[]> {
    const shards = await this.ctx.shards.all(this.ctx.keysOf(queue));
    return (await Promise.all(shards.map((s) => this.ctx.scripts.lanes(s, MAX_COUNT)))).flat();
  }

  async ring(queue: string, count: unknown): Promise<string[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    // NOTE: in `cost`/`time` fairness the ring's order is its virtual-time set (lua/includes/ringOps.lua);
    // one of the two is empty, but both are read while a change of fairness moves the entries over.
    const heads = await Promise.all((await this.ctx.shards.all(k)).map(async (s) => {
      const [list, byTime] = await Promise.all([
        this.ctx.read('ring', s, this.ctx.client.lrange(s.ring, 0, n - 1)),
        this.ctx.read('ring', s, this.ctx.client.zrange(s.ring + ':vt', 0, n - 1)),
      ]);
      return [...byTime, ...list];
    }));
    if (heads.length === 1) return heads[0].slice(0, n);
    // NOTE: a sharded queue's rings, one entry of each in turn: the order claims visit them is only
    // about that (shards/shard-visits.ts weighs them by size).
    const out: string[] = [];
    for (let i = 0; out.length < n && heads.some((h) => i < h.length); i++) for (const h of heads) if (i < h.length && out.length < n) out.push(h[i]);
    return out;
  }

  async peek(queue: string, group: unknown, count: unknown): Promise<string[]> {
    const k = this.ctx.keysOf(queue);
    const g = checkName('group', group, k.queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    const s = await this.ctx.shards.ofLane(k, g);
    return this.ctx.read('peek', s, this.ctx.client.zrange(s.lane(g), '0', String(n - 1)));
  }

  /**
   * A page of the lane index, by ZSCAN: a lane present for the whole scan is returned at least once,
   * and each call costs O(count). The cursor is ZSCAN's, checked to be one it could have returned.
   */
  async scanLanes(queue: string, opts: unknown): Promise<LanePage> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<ScanLanesOptions>('opts', opts, k.queue);
    const count = checkOptInt('opts.count', o.count, 1, LANE_PAGE_MAX, k.queue) ?? 100;
    const shards = await this.ctx.shards.count(k);
    // NOTE: a sharded queue's cursor is '<shard>.<cursor>': its shards are scanned one after another.
    let cursor = '0';
    let shard = 0;
    if (o.cursor !== undefined) {
      const at = cursorOf(o.cursor, shards);
      if (!at) {
        throw new EchoMqError(invalidArgument('opts.cursor', 'must be a cursor that scanLanes returned', o.cursor), { argument: 'opts.cursor', queue: k.queue });
      }
      [shard, cursor] = at;
    }
    const s = k.shardKeys(shard);
    const [next, flat] = await this.ctx.read('scanLanes', s, this.ctx.client.zscan(s.index, cursor, 'COUNT', count));
    const groups: string[] = [];
    // NOTE: the index's head entries are not lanes (a group name never holds '{').
    for (let i = 0; i < flat.length; i += 2) if (!isHeadEntry(flat[i])) groups.push(flat[i]);
    let after: string | null = null;
    if (shards === 1) after = next === '0' ? null : next;
    else if (next !== '0') after = `${shard}.${next}`;
    else if (shard + 1 < shards) after = `${shard + 1}.0`;
    return { lanes: await this.rows(s, groups), cursor: after };
  }

  /** Each shard's deepest lanes by the lane index (deepestLanes: O(log lanes + count)), then each lane's row. */
  async topLanes(queue: string, count: unknown): Promise<LaneInfo[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    const tops = await Promise.all((await this.ctx.shards.all(k)).map(async (s) => this.rows(s, await deepestLanes(this.ctx, s, n))));
    return mergeTop(tops, n, (l) => l.pending, (l) => l.group);
  }

  /** The `count` lanes whose head jobs have waited longest, longest first (exact; see lua/oldestLanes-1.lua). */
  async oldestLanes(queue: string, count: unknown): Promise<LaneHeadWait[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, LANE_PAGE_MAX, k.queue);
    const each = await Promise.all((await this.ctx.shards.all(k)).map((s) => this.fairness.oldest(s, n)));
    return mergeTop(each, n, (l) => l.headWaitMs, (l) => l.group);
  }

  /** What the lanes were served over the last minute (see lua/laneShares-4.lua). */
  async shares(queue: string, opts: unknown): Promise<FairShares> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<SharesOptions>('opts', opts, k.queue);
    const n = checkOptInt('opts.count', o.count, 1, LANE_PAGE_MAX, k.queue) ?? 10;
    return this.fairness.shares(await this.ctx.shards.all(k), n);
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
    // NOTE: all of them unless a page is asked for, as the contract's dead(queue) says (in scripts of DEAD_PER_SCRIPT).
    const count = checkOptInt('opts.count', o.count, 1, MAX_COUNT, k.queue) ?? MAX_COUNT;
    const shards = await this.ctx.shards.all(k);
    if (shards.length === 1) return this.deadOf(k, offset, count);
    // NOTE: a sharded queue's dead letters are listed shard after shard, each oldest death first.
    const out: LaneJob[] = [];
    let skip = offset;
    for (const s of shards) {
      if (out.length >= count) break;
      const size = Number(await this.ctx.read('dead', s, this.ctx.client.zcard(s.dead)));
      if (skip >= size) {
        skip -= size;
        continue;
      }
      out.push(...(await this.deadOf(s, skip, count - out.length)));
      skip = 0;
    }
    return out;
  }

  /** One shard's dead letters from `offset`, in scripts of DEAD_PER_SCRIPT (each a row read per job). */
  private async deadOf(k: LaneKeys, offset: number, count: number): Promise<LaneJob[]> {
    const out: LaneJob[] = [];
    while (out.length < count) {
      const want = Math.min(DEAD_PER_SCRIPT, count - out.length);
      const page = await this.ctx.scripts.dead(k, offset + out.length, want);
      out.push(...page);
      if (page.length < want) break;
    }
    return out;
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
    const shards = await this.ctx.shards.all(k);
    if (shards.length === 1) return this.statsOf(k);
    // NOTE: a sharded queue's figures are its shards' summed; its oldest head is the oldest of theirs.
    const each = await Promise.all(shards.map((s) => this.statsOf(s)));
    const sum = (f: (x: QueueStats) => number): number => each.reduce((a, x) => a + f(x), 0);
    const oldest = each.reduce((a, x) => (x.oldestWaitMs !== null && (a.oldestWaitMs === null || x.oldestWaitMs > a.oldestWaitMs) ? x : a));
    const t = (f: keyof QueueStats['totals']): number => sum((x) => x.totals[f]);
    return {
      totals: { submitted: t('submitted'), completed: t('completed'), retried: t('retried'), dead: t('dead'), reaped: t('reaped'), cancelled: t('cancelled') },
      pending: sum((x) => x.pending),
      scheduled: sum((x) => x.scheduled),
      active: sum((x) => x.active),
      dead: sum((x) => x.dead),
      lanes: sum((x) => x.lanes),
      ringLength: sum((x) => x.ringLength),
      pausedLanes: sum((x) => x.pausedLanes),
      // NOTE: pauseQueue pauses shard after shard: any shard paused shows, so a pause left half done is seen.
      paused: each.some((x) => x.paused),
      limit: null,
      fairness: each[0].fairness,
      completedPerSec: sum((x) => x.completedPerSec),
      oldestWaitMs: oldest.oldestWaitMs,
      oldestLane: oldest.oldestLane,
      shards: shards.length,
      shardRingLengths: each.map((x) => x.ringLength),
    };
  }

  /** The figures of one queue, or of one shard of a sharded queue. */
  private async statsOf(k: LaneKeys): Promise<QueueStats> {
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
      shards: 1,
      shardRingLengths: [s.ringLength],
    };
  }
}

/** A scanLanes cursor as [shard, ZSCAN cursor], null for a value scanLanes could not have returned. */
function cursorOf(value: unknown, shards: number): [number, string] | null {
  if (typeof value !== 'string') return null;
  const zscanCursor = (c: string): boolean => CURSOR.test(c) && BigInt(c) < 2n ** 64n;
  if (shards === 1) return zscanCursor(value) ? [0, value] : null;
  const m = SHARD_CURSOR.exec(value);
  if (!m || Number(m[1]) >= shards || (m[2] !== '0' && !zscanCursor(m[2]))) return null;
  return [Number(m[1]), m[2]];
}
