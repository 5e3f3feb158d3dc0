import type { FairShares, LaneHeadWait, LaneShare } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneScripts } from './lane-scripts';

/** Lanes one laneShares 'rows' call reads (its ZMSCORE and MGET take them as arguments). */
const SHARE_ROWS_PER_CALL = 250;
/** The window shares() counts over (SHARE_WINDOW_MS of lua/includes/shareWindow.lua). */
const WINDOW_MS = 60_000;
/** Heads one oldestLanes call checks at most: about 0.8 ms of server time on a 100,000-lane queue. */
const HEADS_PER_CALL = 100;
/** Calls one read of the oldest heads makes at most: 100,000 heads (all the lanes of a 100,000-lane queue upgraded from 0.2, at their floor). */
const OLDEST_CALLS_MAX = 1_000;

/** @internal Where one read of the oldest heads has got to: the oldest found so far, by lane, and the last head entry checked. */
export interface OldestSoFar {
  ready: Map<string, number>;
  now: number;
  /** The bound and member of the last head entry checked; ['', ''] before any. */
  after: [string, string];
}

/** @internal The typed calls of the scripts that show fairness (lua/laneShares-4.lua, lua/oldestLanes-1.lua): what the lanes were served, and whose heads waited longest. */
export class FairnessViewScripts {
  constructor(private readonly scripts: LaneScripts) {}

  /**
   * What the lanes were served over the last minute, with their entitlements and Jain's index: the
   * candidates (one call), their counts (a call per 500), the weights behind `entitled` (one call),
   * so that no script runs long on a large queue (see lua/laneShares-4.lua).
   */
  async shares(shards: LaneKeys[], count: number): Promise<FairShares> {
    // NOTE: on a sharded queue each shard's lanes are read in their own slot, then weighed together:
    // a lane's entitlement is its weight over the backlogged weights of every shard.
    const parts = await Promise.all(shards.map((k) => this.sharesOf(k, count)));
    const topSum = parts.reduce((a, p) => a + p.topSum, 0);
    const tenants = new Map<string, { weight: number; sum: number }>();
    for (const p of parts) for (const [t, v] of p.tenants) tenants.set(t, v);
    const lanes: LaneShare[] = [];
    const xs: number[] = [];
    for (const p of parts) {
      for (const l of p.lanes) {
        if (l.backlogged) xs.push(l.work / l.weight);
        if (!p.servedMost.has(l.group) || l.served === 0) continue;
        const t = l.tenant ? tenants.get(l.tenant) : undefined;
        let entitled = 0;
        if (l.backlogged && topSum > 0) entitled = t && t.sum > 0 ? (t.weight / topSum) * (l.weight / t.sum) : l.weight / topSum;
        lanes.push({ ...l, entitled: Math.min(1, entitled) });
      }
    }
    lanes.sort((a, b) => b.served - a.served || (a.group < b.group ? -1 : 1));
    const sum = xs.reduce((a, x) => a + x, 0);
    const squares = xs.reduce((a, x) => a + x * x, 0);
    // NOTE: backlogged lanes that were all served nothing (a stalled queue) were served alike: 1, as
    // the index reads for equal shares (0 / 0 otherwise); the oldest head tells of the stall.
    const jain = xs.length < 2 ? null : squares > 0 ? (sum * sum) / (xs.length * squares) : 1;
    return { windowMs: WINDOW_MS, lanes: lanes.slice(0, count), jain };
  }

  /**
   * One queue's (or shard's) part of shares(): the candidates (one call), their counts (a call per
   * 250), the weights behind `entitled` (one call), so that no script runs long on a large queue
   * (see lua/laneShares-4.lua). `lanes` are the candidates' rows, `entitled` still 0.
   */
  private async sharesOf(k: LaneKeys, count: number): Promise<{ lanes: LaneShare[]; servedMost: Set<string>; topSum: number;
    tenants: Map<string, { weight: number; sum: number }> }> {
    const keys = [k.index, k.weight, k.meta, k.tenants];
    const top = (await this.scripts.run('shares', k.queue, 'laneShares', keys, [k.base, 'top', count])) as string[];
    const now = top[0];
    const byWork = Number(top[1]) === 1;
    const names = top.slice(2);
    const split = names.indexOf('');
    const servedMost = new Set(names.slice(0, split));
    names.splice(split, 1);
    const chunks: string[][] = [];
    for (let i = 0; i < names.length; i += SHARE_ROWS_PER_CALL) chunks.push(names.slice(i, i + SHARE_ROWS_PER_CALL));
    const [sums, ...rows] = await Promise.all([
      this.scripts.run('shares', k.queue, 'laneShares', keys, [k.base, 'sums']) as Promise<string[]>,
      ...chunks.map((chunk) => this.scripts.run('shares', k.queue, 'laneShares', keys, [k.base, 'rows', now, ...chunk]) as Promise<string[]>),
    ]);
    const tenants = new Map<string, { weight: number; sum: number }>();
    for (let i = 1; i + 2 < sums.length; i += 3) tenants.set(sums[i], { weight: Number(sums[i + 1]), sum: Number(sums[i + 2]) });
    const lanes: LaneShare[] = [];
    // NOTE: five fields per lane, in the order of `names` (see 'rows' in the script).
    const flat = rows.flat();
    for (let at = 0; at + 4 < flat.length; at += 5) {
      const served = Math.round(Number(flat[at]));
      lanes.push({
        group: names[at / 5],
        tenant: flat[at + 4] || null,
        served,
        work: byWork ? Math.round(Number(flat[at + 1]) * 1000) / 1000 : served,
        weight: Number(flat[at + 3]),
        entitled: 0,
        backlogged: Number(flat[at + 2]) > 0,
      });
    }
    return { lanes, servedMost, topSum: Number(sums[0]), tenants };
  }

  /**
   * The `count` lanes whose heads have waited longest, longest first: oldestLanes calls until one
   * is done, each told the count-th oldest known so far (so it checks only heads that may beat it).
   */
  async oldest(k: LaneKeys, count: number, from?: OldestSoFar): Promise<LaneHeadWait[]> {
    const known = from ?? { ready: new Map<string, number>(), now: 0, after: ['', ''] };
    let after = known.after;
    for (let call = 0; call < OLDEST_CALLS_MAX; call++) {
      const below = known.ready.size >= count ? [...known.ready.values()].sort((a, b) => a - b)[count - 1] : '';
      const r = (await this.scripts.run('oldestLanes', k.queue, 'oldestLanes', [k.index], [k.base, count, HEADS_PER_CALL, below, ...after])) as string[];
      known.now = Number(r[1]);
      after = [String(r[2]), String(r[3])];
      for (let i = 4; i + 1 < r.length; i += 2) known.ready.set(String(r[i]), Number(r[i + 1]));
      if (Number(r[0]) === 1) break;
    }
    return [...known.ready.entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count)
      .map(([group, ready]) => ({ group, headWaitMs: Math.max(0, known.now - ready) }));
  }
}
