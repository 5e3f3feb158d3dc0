import { BAND_PAGE, BAND_PAGES_MAX } from '../echomq.constants';
import { DEPTHS_BELOW_HEADS, type LaneKeys } from '../redis/lane-keys';
import type { LaneContext } from './lane-context';

/**
 * @internal The `n` lanes of one shard with most pending, most first (ties by name), exactly. The
 * lane index scores a lane within a factor of two of its depth (lua/includes/indexMoved.lua: the hot
 * paths write it only when the depth crosses a power of two), so the index gives the bands: every
 * lane above the band of the n-th is in the top n, and the n-th's band decides the last places.
 * When that band is [1, 2) its lanes all hold exactly one job (ties), so the first read is the
 * answer once its depths are counted; otherwise every lane of the band and above is counted from
 * the lanes themselves, a page of BAND_PAGE per bandDepths call (lua/bandDepths-1.lua), so that no
 * call runs long, up to BAND_PAGES_MAX pages: with more lanes than that in the band, the last places
 * go to the deepest of those counted (each within a factor of two of any left out).
 */
export async function deepestLanes(ctx: LaneContext, s: LaneKeys, n: number): Promise<string[]> {
  const first = await ctx.read('topLanes', s, ctx.client.zrevrangebyscore(s.index, DEPTHS_BELOW_HEADS, '-inf', 'WITHSCORES', 'LIMIT', 0, n));
  const lastScore = first.length === 2 * n ? Number(first[first.length - 1]) : 0;
  const depth = new Map<string, number>();
  if (lastScore < 2) {
    const names: string[] = [];
    for (let i = 0; i < first.length; i += 2) names.push(first[i]);
    const depths = await ctx.read('topLanes', s, Promise.all(names.map((g) => ctx.client.zcard(s.lane(g)))));
    names.forEach((g, i) => depth.set(g, depths[i]));
  } else {
    // NOTE: the lower edge of the n-th's band: the largest power of two not above its score. A lane
    // whose score moves between pages may be read twice (the map keeps one depth) or not at all,
    // as any read of a queue that is being written.
    const low = 2 ** Math.floor(Math.log2(lastScore));
    for (let page = 0; page < BAND_PAGES_MAX; page++) {
      const r = (await ctx.scripts.run('topLanes', s.queue, 'bandDepths', [s.index], [s.base, low, page * BAND_PAGE, BAND_PAGE])) as (string | number)[];
      for (let i = 0; i + 1 < r.length; i += 2) depth.set(String(r[i]), Number(r[i + 1]));
      if (r.length < 2 * BAND_PAGE) break;
    }
  }
  return [...depth.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([g]) => g);
}
