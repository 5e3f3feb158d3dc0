import type { LaneInfo } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';

/**
 * @internal The values one lane row takes in a script reply (see lua/includes/laneRow.lua): group,
 * pending, active, weight, limit, paused, inRing, rateMax, ratePerMs, pausedUntil, pauseReason, tenant, maxDepth,
 * ordered, headWaitMs.
 */
export const LANE_ROW_WIDTH = 15;

/**
 * @internal The keys laneRow reads, in the order every script that includes it declares them first:
 * ringset, paused, glimit, gactive, gweight, grate, gpause, timers, ring (the ring is read in compat mode only).
 */
export const laneRowKeys = (k: LaneKeys): string[] =>
  [k.ringSet, k.paused, k.limit, k.gactive, k.weight, k.rate, k.pauseInfo, k.timers, k.ring];

/** @internal Maps the lane row that starts at `at` of a reply; the one mapper of every lane read. */
export function toLaneInfo(r: unknown[], at = 0): LaneInfo {
  const limit = Number(r[at + 4]);
  const rateMax = Number(r[at + 7]);
  const pausedUntil = Number(r[at + 9]);
  const reason = r[at + 10] as string;
  const maxDepth = Number(r[at + 12]);
  return {
    group: String(r[at]),
    pending: Number(r[at + 1]),
    active: Number(r[at + 2]),
    weight: Number(r[at + 3]),
    limit: limit < 0 ? null : limit,
    paused: Number(r[at + 5]) === 1,
    inRing: Number(r[at + 6]) === 1,
    rate: rateMax < 0 ? null : { max: rateMax, perMs: Number(r[at + 8]) },
    pausedUntil: pausedUntil < 0 ? null : pausedUntil,
    pauseReason: reason ? reason : null,
    tenant: r[at + 11] ? String(r[at + 11]) : null,
    maxDepth: maxDepth < 0 ? null : maxDepth,
    ordered: Number(r[at + 13]) === 1,
    headWaitMs: Number(r[at + 14]) < 0 ? null : Number(r[at + 14]),
  };
}

/** @internal Maps a flat reply of lane rows. */
export function toLaneInfos(r: unknown[]): LaneInfo[] {
  const out: LaneInfo[] = [];
  for (let i = 0; i + LANE_ROW_WIDTH <= r.length; i += LANE_ROW_WIDTH) out.push(toLaneInfo(r, i));
  return out;
}
