import { EchoMqError, type LaneInfo, type LaneJob, type LanesService } from '../index';

/** @internal A lane as the page shows it. */
export type DashboardLane = LaneInfo;

/** @internal The queue-wide numbers the page shows (the shape of the 0.2 `QueueStats`). */
export interface DashboardStats {
  totals: { submitted: number; completed: number; retried: number; dead: number; reaped: number };
  pending: number; scheduled: number; active: number; dead: number;
  lanes: number; ringLength: number; pausedLanes: number;
  completedPerSec: number;
  paused?: boolean;
}

/** @internal Where a pending job stands (the shape of the 0.2 `LanePosition`). */
export interface DashboardPosition {
  laneRank: number; ringIndex: number | null; ringLength: number; ahead: number; exact: boolean;
  estimatedWaitMs: number | null;
}

/** The 0.2 reads, typed as the contract names them; present once the engine has them. */
interface Reads02 {
  topLanes?(queue: string, count: number): Promise<DashboardLane[]>;
  scanLanes?(queue: string, opts: { cursor?: string; count?: number }): Promise<{ lanes: DashboardLane[]; cursor: string | null }>;
  position?(queue: string, jobId: string): Promise<DashboardPosition | null>;
}

/**
 * @internal The reads the dashboard makes, on `LanesService` alone. Where the engine lacks a 0.2 read,
 * it falls back to `lanes()` (O(lanes): fine for small queues, never for 100,000 lanes).
 */
export class LanesReads {
  private readonly v2: Reads02;

  constructor(private readonly lanes: LanesService) {
    this.v2 = lanes as unknown as Reads02;
  }

  async stats(queue: string): Promise<DashboardStats> {
    const raw = (await this.lanes.stats(queue)) as unknown as Partial<DashboardStats> & { completed?: number; retried?: number };
    if (raw.totals) return raw as DashboardStats;
    const all = await this.lanes.lanes(queue);
    const dead = await this.lanes.dead(queue, { count: 1_000_000 });
    return {
      totals: { submitted: 0, completed: raw.completed ?? 0, retried: raw.retried ?? 0, dead: raw.dead ?? 0, reaped: 0 },
      pending: all.reduce((n, l) => n + l.pending, 0),
      scheduled: 0,
      active: all.reduce((n, l) => n + l.active, 0),
      dead: dead.length,
      lanes: all.length,
      ringLength: all.filter((l) => l.inRing).length,
      pausedLanes: all.filter((l) => l.paused).length,
      completedPerSec: 0,
    };
  }

  async topLanes(queue: string, count: number): Promise<DashboardLane[]> {
    if (this.v2.topLanes) return this.v2.topLanes.call(this.lanes, queue, count);
    if (!Number.isInteger(count) || count < 1 || count > 1_000) {
      throw new EchoMqError('count must be an integer from 1 to 1,000', { argument: 'count', queue });
    }
    const all = await this.lanes.lanes(queue);
    return all.sort((a, b) => b.pending - a.pending || (a.group < b.group ? -1 : 1)).slice(0, count);
  }

  async scanLanes(queue: string, cursor: string | undefined, count: number): Promise<{ lanes: DashboardLane[]; cursor: string | null }> {
    if (this.v2.scanLanes) return this.v2.scanLanes.call(this.lanes, queue, { cursor, count });
    const all = await this.lanes.lanes(queue);
    const start = cursor ? Number(cursor) : 0;
    const end = start + count;
    return { lanes: all.slice(start, end), cursor: end < all.length ? String(end) : null };
  }

  async position(queue: string, jobId: string): Promise<DashboardPosition | null> {
    return this.v2.position ? this.v2.position.call(this.lanes, queue, jobId) : null;
  }

  lane(queue: string, group: string): Promise<DashboardLane> {
    return this.lanes.lane(queue, group);
  }

  ring(queue: string, count: number): Promise<string[]> {
    return this.lanes.ring(queue, count);
  }

  head(queue: string, group: string): Promise<string | null> {
    return this.lanes.peek(queue, group, 1).then((ids) => ids[0] ?? null);
  }

  dead(queue: string, offset: number, count: number): Promise<LaneJob[]> {
    return this.lanes.dead(queue, { offset, count });
  }
}
