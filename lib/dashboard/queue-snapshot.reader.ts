import { Injectable } from '@nestjs/common';
import { LanesService, type LaneJob } from '../index';
import {
  PAYLOAD_PREVIEW_CHARS, SNAPSHOT_DEAD, SNAPSHOT_LANES, SNAPSHOT_POSITIONS, SNAPSHOT_RING, SNAPSHOT_TENANTS,
} from './dashboard.constants';
import { FairnessView, FairnessViewReader } from './fairness-view.reader';
import { DashboardLane, DashboardPosition, DashboardStats, DashboardTenant, LanesReads } from './lanes-reads';

/** @internal A lane row of the page, with where its head job stands when known. */
export type LaneRow = DashboardLane & { head?: { jobId: string; position: DashboardPosition | null } | null };

/** @internal A dead letter as the page shows it (the payload cut to a preview). */
export interface DeadRow {
  id: string; group: string; attempt: number; submittedAt: number; lastError: string | null; payload: string;
}

/** @internal What one frame of the page holds for a queue. */
export interface QueueSnapshot {
  queue: string;
  at: number;
  stats: DashboardStats;
  ring: string[];
  lanes: LaneRow[];
  /** The tenants with most pending and the tenants of the listed lanes (the page groups lanes under them). */
  tenants: DashboardTenant[];
  dead: DeadRow[];
  /** Who got what share of the last minute against their entitlement, the oldest heads, the ring's head drawn. */
  fairness: FairnessView;
  /** Host ms spent reading this snapshot from the server. */
  readMs: number;
}

/**
 * @internal Reads what the page shows of a queue, each part bounded by a page size, never by the
 * number of lanes (top lanes, the head of the ring, the latest dead letters).
 */
@Injectable()
export class QueueSnapshotReader {
  readonly reads: LanesReads;
  private readonly fairness: FairnessViewReader;

  constructor(lanes: LanesService) {
    this.reads = new LanesReads(lanes);
    this.fairness = new FairnessViewReader(this.reads);
  }

  async snapshot(queue: string, laneCount = SNAPSHOT_LANES): Promise<QueueSnapshot> {
    const started = Date.now();
    const [stats, lanes, ring, top, read] = await Promise.all([
      this.reads.stats(queue),
      this.reads.topLanes(queue, laneCount),
      this.reads.ring(queue, SNAPSHOT_RING),
      this.reads.topTenants(queue, SNAPSHOT_TENANTS),
      this.fairness.read(queue),
    ]);
    const [rows, dead, extra] = await Promise.all([
      this.withHeads(queue, lanes, SNAPSHOT_POSITIONS),
      this.latestDead(queue, stats.dead, SNAPSHOT_DEAD),
      this.fairness.missingLanes(queue, read, ring, lanes),
    ]);
    const known = [...lanes, ...extra];
    const fair = this.fairness.recall(queue, read, known);
    const served = fair.shares.lanes.flatMap((l) => (l.tenant ? [l.tenant] : []));
    const tenants = await this.tenantsOf(queue, [...top, ...this.fairness.ringTenants(ring), ...served], known);
    const fairness = this.fairness.build(stats, fair, ring, known, tenants);
    return { queue, at: Date.now(), stats, ring, lanes: rows, tenants, dead, fairness, readMs: Date.now() - started };
  }

  /**
   * The tenants `top` names and those of `lanes`, each read once: at most SNAPSHOT_TENANTS and the
   * ring's tenants, plus one per listed lane. A queue without tenants (and every compat one) reads none.
   */
  async tenantsOf(queue: string, top: string[], lanes: DashboardLane[]): Promise<DashboardTenant[]> {
    const names = new Set(top);
    for (const lane of lanes) if (lane.tenant) names.add(lane.tenant);
    return Promise.all([...names].map((t) => this.reads.tenant(queue, t)));
  }

  /** The first `count` rows get their head job's position; the rest go as they are. */
  async withHeads(queue: string, lanes: DashboardLane[], count: number): Promise<LaneRow[]> {
    return Promise.all(lanes.map(async (lane, i): Promise<LaneRow> => {
      if (i >= count || lane.pending === 0) return lane;
      return { ...lane, head: await this.headOf(queue, lane.group) };
    }));
  }

  async headOf(queue: string, group: string): Promise<LaneRow['head']> {
    const jobId = await this.reads.head(queue, group);
    return jobId ? { jobId, position: await this.reads.position(queue, jobId) } : null;
  }

  /** The `count` most recent dead letters, newest first. */
  async latestDead(queue: string, total: number, count: number): Promise<DeadRow[]> {
    const jobs = await this.reads.dead(queue, Math.max(0, total - count), count);
    return jobs.reverse().map(deadRow);
  }
}

/** @internal A dead letter cut down for the page. */
export function deadRow(job: LaneJob): DeadRow {
  let payload: string;
  try {
    payload = JSON.stringify(job.payload) ?? '';
  } catch {
    payload = String(job.payload);
  }
  if (payload.length > PAYLOAD_PREVIEW_CHARS) payload = payload.slice(0, PAYLOAD_PREVIEW_CHARS) + '…';
  return { id: job.id, group: job.group, attempt: job.attempt, submittedAt: job.submittedAt, lastError: job.lastError ?? null, payload };
}
