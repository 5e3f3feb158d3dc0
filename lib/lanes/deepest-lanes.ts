import { TOP_BAND_MAX } from '../echomq.constants';
import { DEPTHS_BELOW_HEADS, type LaneKeys } from '../redis/lane-keys';
import type { LaneContext } from './lane-context';

/**
 * @internal The `n` lanes of one shard with most pending, most first (ties by name). The lane index
 * scores a lane within a factor of two of its depth (lua/includes/indexMoved.lua: the hot paths
 * write it only when the depth crosses a power of two), so the index gives the bands: every lane
 * above the band of the n-th is in the top n, and the n-th's band is read whole (up to
 * TOP_BAND_MAX lanes more) and ranked by the exact depths counted from the lanes themselves.
 */
export async function deepestLanes(ctx: LaneContext, s: LaneKeys, n: number): Promise<string[]> {
  const first = await ctx.read('topLanes', s, ctx.client.zrevrangebyscore(s.index, DEPTHS_BELOW_HEADS, '-inf', 'WITHSCORES', 'LIMIT', 0, n));
  const lastScore = first.length === 2 * n ? Number(first[first.length - 1]) : 0;
  let names: string[] = [];
  if (lastScore > 0) {
    // NOTE: the lower edge of the n-th's band: the largest power of two not above its score.
    const low = 2 ** Math.floor(Math.log2(lastScore));
    names = await ctx.read('topLanes', s, ctx.client.zrevrangebyscore(s.index, DEPTHS_BELOW_HEADS, low, 'LIMIT', 0, n + TOP_BAND_MAX));
  } else {
    for (let i = 0; i < first.length; i += 2) names.push(first[i]);
  }
  const depths = await ctx.read('topLanes', s, Promise.all(names.map((g) => ctx.client.zcard(s.lane(g)))));
  const order = names.map((g, i) => ({ g, d: depths[i] }));
  order.sort((a, b) => b.d - a.d || (a.g < b.g ? -1 : 1));
  return order.slice(0, n).map((x) => x.g);
}
