import { SNAPSHOT_OLDEST, SNAPSHOT_SHARES } from './dashboard.constants';
import type { DashboardHeadWait, DashboardLane, DashboardShares, DashboardStats, DashboardTenant, LanesReads } from './lanes-reads';

/**
 * @internal How the ring names a tenant's entry: '{t}' and the tenant ('{' cannot open a lane's name).
 * NOTE: the core's own builder is internal (lib/redis), and the dashboard reads the core only through
 * lib/index.ts, so the prefix is repeated here (and in ui/tenants.js).
 */
export const RING_TENANT_PREFIX = '{t}';

/** @internal How many lanes' last tenants the view recalls (see FairnessViewReader.recall); past it, it starts again. */
export const RECALL_LANES = 10_000;

/** @internal One lane of the fairness view: its share of the window's service, its entitlement, its head's age. */
export interface FairLane {
  group: string;
  tenant: string | null;
  /** Jobs claimed from it in the window; null when it is not among the lanes served most (it got at most the least of them). */
  served: number | null;
  /** Work charged to it in the window (its cost, or handler ms, in `cost`/`time` fairness; its jobs in `jobs` fairness); null when not listed. */
  work: number | null;
  /** Its work ÷ the work of every listed lane (0..1): its share of what was served; null when not listed or nothing was served. */
  share: number | null;
  /** The share its weight entitles it to among the lanes backlogged now (0..1); null when the shares read did not list it. */
  entitled: number | null;
  /** It holds pending jobs now. */
  backlogged: boolean;
  weight: number;
  pending: number;
  /** How long its head job has been ready (ms, server clock); null when it holds none. */
  headWaitMs: number | null;
  paused: boolean;
  pausedUntil: number | null;
  pauseReason: string | null;
  inRing: boolean;
}

/** @internal One entry of the ring as the view draws it, in the order claims serve them. */
export interface FairRingEntry {
  kind: 'lane' | 'tenant';
  /** The lane, or the tenant. */
  name: string;
  /** The lane's weight (heads per turn), or the tenant's (turns of its own ring per visit). */
  weight: number;
  /** The lane's head age; for a tenant the longest of its lanes the snapshot read; null when unknown or empty. */
  headWaitMs: number | null;
}

/** @internal The fairness part of a snapshot: who got what share of the last minute, against what they are entitled to, and how long heads wait. */
export interface FairnessView {
  /** What a share counts: jobs, declared cost, or handler time. */
  by: DashboardStats['fairness']['by'];
  windowMs: number;
  /** Jain's index over the backlogged lanes (1: every one got its weight's share); null with fewer than two. */
  jain: number | null;
  /** The work of every listed lane: what the shares are parts of. */
  total: number;
  /** Every lane served in the window is listed (fewer came back than were asked for), so `total` is the queue's. */
  complete: boolean;
  /** The longest head wait of the queue and its lane (exact, from stats). */
  oldestWaitMs: number | null;
  oldestLane: string | null;
  /** The lanes served most, then those whose heads have waited longest (not already listed). */
  lanes: FairLane[];
  /** The head of the ring, in claim order. */
  ring: FairRingEntry[];
  /** Entries of the ring after those in `ring`. */
  ringMore: number;
}

/** @internal What the fairness view reads beyond the rest of a snapshot: two bounded calls. */
export interface FairnessReads {
  shares: DashboardShares;
  oldest: DashboardHeadWait[];
}

/**
 * @internal Reads and shapes the fairness view of a snapshot: one `shares` call (SNAPSHOT_SHARES
 * lanes), one `oldestLanes` call (SNAPSHOT_OLDEST lanes), and one `lane` read for each lane of the view
 * or of the ring's head that the snapshot's top lanes do not already hold: bounded by those counts,
 * never by the number of lanes.
 */
export class FairnessViewReader {
  /**
   * The tenant each lane was last read under (by queue and lane), for RECALL_LANES lanes at most. A
   * lane leaves its tenant whenever it is empty (the next submit may name another), so a tenant's lanes
   * that drain as fast as they fill read no tenant in most frames, though the window served them under it.
   */
  private readonly seen = new Map<string, { tenant: string; at: number }>();

  constructor(private readonly reads: LanesReads) {}

  /**
   * `fair` with each listed lane that reads no tenant now given the tenant it was read under within the
   * window (windowMs), by this frame or an earlier one: the view groups what the window served by the
   * tenant it served it under. A lane read under a tenant now keeps that one.
   */
  recall(queue: string, fair: FairnessReads, lanes: DashboardLane[], now = Date.now()): FairnessReads {
    const key = (group: string): string => queue + '\u0000' + group;
    if (this.seen.size > RECALL_LANES) this.seen.clear();
    const current = new Map<string, string | null>(lanes.map((l) => [l.group, l.tenant]));
    for (const l of [...fair.shares.lanes, ...lanes]) if (l.tenant) this.seen.set(key(l.group), { tenant: l.tenant, at: now });
    const recalled = fair.shares.lanes.map((l) => {
      const tenant = l.tenant ?? current.get(l.group) ?? null;
      if (tenant) return tenant === l.tenant ? l : { ...l, tenant };
      const s = this.seen.get(key(l.group));
      return s && now - s.at <= fair.shares.windowMs ? { ...l, tenant: s.tenant } : l;
    });
    return { ...fair, shares: { ...fair.shares, lanes: recalled } };
  }

  async read(queue: string): Promise<FairnessReads> {
    const [shares, oldest] = await Promise.all([this.reads.shares(queue, SNAPSHOT_SHARES), this.reads.oldestLanes(queue, SNAPSHOT_OLDEST)]);
    return { shares, oldest };
  }

  /** The lanes of the view and of `ring` that `known` lacks, each read once. */
  missingLanes(queue: string, fair: FairnessReads, ring: string[], known: DashboardLane[]): Promise<DashboardLane[]> {
    const have = new Set(known.map((l) => l.group));
    const wanted = new Set<string>();
    const want = (group: string): void => {
      if (!have.has(group)) wanted.add(group);
    };
    for (const l of fair.shares.lanes) want(l.group);
    for (const l of fair.oldest) want(l.group);
    for (const entry of ring) if (!entry.startsWith(RING_TENANT_PREFIX)) want(entry);
    return Promise.all([...wanted].map((g) => this.reads.lane(queue, g)));
  }

  /** The tenants the ring names (their entries' weights are drawn). */
  ringTenants(ring: string[]): string[] {
    return ring.filter((e) => e.startsWith(RING_TENANT_PREFIX)).map((e) => e.slice(RING_TENANT_PREFIX.length));
  }

  /** The view, from the reads: `lanes` must hold every lane `missingLanes` named, `tenants` those `ringTenants` named. */
  build(stats: DashboardStats, fair: FairnessReads, ring: string[], lanes: DashboardLane[], tenants: DashboardTenant[]): FairnessView {
    const byGroup = new Map(lanes.map((l) => [l.group, l]));
    const { shares, oldest } = fair;
    const total = shares.lanes.reduce((n, l) => n + l.work, 0);
    const rows: FairLane[] = shares.lanes.map((s) => {
      const info = byGroup.get(s.group);
      return {
        ...laneState(info),
        group: s.group, tenant: s.tenant, served: s.served, work: s.work, share: total > 0 ? s.work / total : null,
        entitled: s.entitled, backlogged: s.backlogged, weight: s.weight,
      };
    });
    // NOTE: with fewer lanes than asked for, shares listed every lane served in the window: one it did not list got nothing.
    const complete = shares.lanes.length < SNAPSHOT_SHARES;
    const listed = new Set(rows.map((r) => r.group));
    for (const o of oldest) {
      if (listed.has(o.group)) continue;
      listed.add(o.group);
      const info = byGroup.get(o.group);
      rows.push({
        ...laneState(info), headWaitMs: info?.headWaitMs ?? o.headWaitMs,
        group: o.group, tenant: info?.tenant ?? null, served: complete ? 0 : null, work: complete ? 0 : null,
        share: complete && total > 0 ? 0 : null, entitled: null,
        backlogged: (info?.pending ?? 1) > 0, weight: info?.weight ?? 1,
      });
    }
    return {
      by: stats.fairness?.by ?? 'jobs',
      windowMs: shares.windowMs,
      jain: shares.jain,
      total,
      complete,
      oldestWaitMs: stats.oldestWaitMs ?? null,
      oldestLane: stats.oldestLane ?? null,
      lanes: rows,
      ring: ring.map((entry) => ringEntry(entry, byGroup, tenants, lanes)),
      ringMore: Math.max(0, stats.ringLength - ring.length),
    };
  }
}

/** A lane's state as the view shows it; a lane not read shows as empty and in service. */
function laneState(info: DashboardLane | undefined): Pick<FairLane, 'pending' | 'headWaitMs' | 'paused' | 'pausedUntil' | 'pauseReason' | 'inRing'> {
  return {
    pending: info?.pending ?? 0,
    headWaitMs: info?.headWaitMs ?? null,
    paused: info?.paused ?? false,
    pausedUntil: info?.pausedUntil ?? null,
    pauseReason: info?.pauseReason ?? null,
    inRing: info?.inRing ?? false,
  };
}

function ringEntry(entry: string, byGroup: Map<string, DashboardLane>, tenants: DashboardTenant[], lanes: DashboardLane[]): FairRingEntry {
  if (!entry.startsWith(RING_TENANT_PREFIX)) {
    const info = byGroup.get(entry);
    return { kind: 'lane', name: entry, weight: info?.weight ?? 1, headWaitMs: info?.headWaitMs ?? null };
  }
  const name = entry.slice(RING_TENANT_PREFIX.length);
  let oldest: number | null = null;
  for (const l of lanes) {
    if (l.tenant === name && l.headWaitMs !== null && l.headWaitMs !== undefined && (oldest === null || l.headWaitMs > oldest)) oldest = l.headWaitMs;
  }
  return { kind: 'tenant', name, weight: tenants.find((t) => t.tenant === name)?.weight ?? 1, headWaitMs: oldest };
}
