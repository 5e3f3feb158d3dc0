import type { FairShares, LaneHeadWait } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneScripts } from './lane-scripts';

/** Heads one oldestLanes call checks at most: about 0.5 ms of server time. */
const HEADS_PER_CALL = 200;
/** Calls one read of the oldest heads makes at most (a queue whose heads are mostly callers' own ids can need many). */
const OLDEST_CALLS_MAX = 50;

/** @internal Where one read of the oldest heads has got to: the oldest found so far, by lane. */
export interface OldestSoFar {
  ready: Map<string, number>;
  now: number;
}

/** @internal The typed calls of the scripts that show fairness (lua/laneShares-4.lua, lua/oldestLanes-1.lua): what the lanes were served, and whose heads waited longest. */
export class FairnessViewScripts {
  constructor(private readonly scripts: LaneScripts) {}

  /** What the lanes were served over the last minute, with their entitlements and Jain's index. */
  async shares(k: LaneKeys, count: number): Promise<FairShares> {
    const r = (await this.scripts.run('shares', k.queue, 'laneShares', [k.index, k.weight, k.meta, k.tenants], [k.base, count])) as (string | number)[];
    const lanes: FairShares['lanes'] = [];
    for (let i = 2; i + 6 < r.length; i += 7) {
      lanes.push({
        group: String(r[i]), tenant: r[i + 1] ? String(r[i + 1]) : null, served: Number(r[i + 2]), work: Number(r[i + 3]),
        weight: Number(r[i + 4]), entitled: Number(r[i + 5]), backlogged: Number(r[i + 6]) === 1,
      });
    }
    return { windowMs: Number(r[0]), lanes, jain: r[1] === '' || r[1] == null ? null : Number(r[1]) };
  }

  /**
   * The `count` lanes whose heads have waited longest, longest first: oldestLanes calls until one
   * is done, each told the count-th oldest known so far (so it checks only heads that may beat it).
   */
  async oldest(k: LaneKeys, count: number, from?: OldestSoFar): Promise<LaneHeadWait[]> {
    const known = from ?? { ready: new Map<string, number>(), now: 0 };
    for (let call = 0; call < OLDEST_CALLS_MAX; call++) {
      const below = known.ready.size >= count ? [...known.ready.values()].sort((a, b) => a - b)[count - 1] : '';
      const r = (await this.scripts.run('oldestLanes', k.queue, 'oldestLanes', [k.index], [k.base, count, HEADS_PER_CALL, below])) as string[];
      known.now = Number(r[1]);
      for (let i = 2; i + 1 < r.length; i += 2) known.ready.set(String(r[i]), Number(r[i + 1]));
      if (Number(r[0]) === 1) break;
    }
    return [...known.ready.entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count)
      .map(([group, ready]) => ({ group, headWaitMs: Math.max(0, known.now - ready) }));
  }
}
