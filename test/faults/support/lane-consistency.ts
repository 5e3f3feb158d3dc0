import type IORedis from 'ioredis';
import { LaneKeys } from '../../../lib/redis/lane-keys';

/** The reads the check makes, each of one key: a connection to one server, or a Cluster client. */
type Reader = Pick<IORedis, 'lrange' | 'smembers' | 'zcard' | 'zrange' | 'hget' | 'hgetall'>;

/** What {@link laneConsistency} found; `problems` is empty when the queue's bookkeeping agrees. */
export interface Consistency {
  problems: string[];
  ring: number;
  leased: number;
}

/**
 * Checks a queue's bookkeeping against its jobs: the ring and its set hold the same lanes once
 * each, every lane in the ring has pending jobs, and `gactive` counts exactly the leased jobs of
 * each lane. `queue` is a queue's name, or the keys of one shard of a sharded queue (`shardKeys(i)`).
 */
export async function laneConsistency(client: Reader, queue: string | LaneKeys, prefix = 'emq'): Promise<Consistency> {
  const k = typeof queue === 'string' ? new LaneKeys(prefix, queue) : queue;
  const problems: string[] = [];
  const ring = await client.lrange(k.ring, 0, -1);
  const ringSet = new Set(await client.smembers(k.ringSet));
  if (new Set(ring).size !== ring.length) problems.push(`the ring holds a lane twice (${ring.length} entries)`);
  if (ring.length !== ringSet.size || ring.some((g) => !ringSet.has(g))) problems.push(`ring (${ring.length}) and ringset (${ringSet.size}) differ`);
  for (const g of ring) {
    if ((await client.zcard(k.lane(g))) === 0) problems.push(`lane ${g} is in the ring with nothing pending`);
  }
  const leased = await client.zrange(k.active, 0, -1);
  const counted = new Map<string, number>();
  for (const id of leased) {
    const g = await client.hget(k.job(id), 'group');
    if (g === null) problems.push(`lease of ${id} without a row`);
    else counted.set(g, (counted.get(g) ?? 0) + 1);
  }
  const gactive = await client.hgetall(k.gactive);
  for (const g of new Set([...Object.keys(gactive), ...counted.keys()])) {
    const said = Number(gactive[g] ?? 0);
    const real = counted.get(g) ?? 0;
    if (said !== real) problems.push(`gactive of ${g} is ${said}, leased jobs ${real}`);
  }
  return { problems, ring: ring.length, leased: leased.length };
}
