import { LANE_PAGE_MAX } from '../echomq.constants';
import { DEPTHS_BELOW_HEADS, type LaneKeys } from '../redis/lane-keys';
import type { LaneContext } from './lane-context';

/**
 * @internal The `n` lanes of one shard with most pending, most first (ties by name). The lane index
 * scores a lane within a factor of two of its depth (lua/includes/indexMoved.lua: the hot paths
 * write it only when the depth crosses a power of two), so the index gives the bands: every lane
 * above the band of the n-th is in the top n, and the n-th's band is read whole, a page of
 * LANE_PAGE_MAX lanes at a time, and ranked by the exact depths counted from the lanes themselves.
 * A band that fits in one page (the common case) costs three round trips: the top, the band, the
 * counts.
 */
export async function deepestLanes(ctx: LaneContext, s: LaneKeys, n: number): Promise<string[]> {
  const first = await ctx.read('topLanes', s, ctx.client.zrevrangebyscore(s.index, DEPTHS_BELOW_HEADS, '-inf', 'WITHSCORES', 'LIMIT', 0, n));
  const lastScore = first.length === 2 * n ? Number(first[first.length - 1]) : 0;
  // NOTE: by name, so a lane whose score moved between two pages is counted once.
  const depthOf = new Map<string, number>();
  const count = async (names: string[]) => {
    const depths = await ctx.read('topLanes', s, Promise.all(names.map((g) => ctx.client.zcard(s.lane(g)))));
    names.forEach((g, i) => depthOf.set(g, depths[i]));
  };
  if (lastScore > 0) {
    // NOTE: the lower edge of the n-th's band: the largest power of two not above its score.
    const low = 2 ** Math.floor(Math.log2(lastScore));
    for (let offset = 0; ; offset += LANE_PAGE_MAX) {
      const page = await ctx.read('topLanes', s, ctx.client.zrevrangebyscore(s.index, DEPTHS_BELOW_HEADS, low, 'LIMIT', offset, LANE_PAGE_MAX));
      await count(page);
      if (page.length < LANE_PAGE_MAX) break;
    }
  } else {
    await count(first.filter((_, i) => i % 2 === 0));
  }
  const order = [...depthOf].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return order.slice(0, n).map(([g]) => g);
}
