import { randomUUID } from 'crypto';
import type IORedis from 'ioredis';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import type { EchoMqModuleOptions, LaneInfo } from '../../lib/interfaces';
import { LanesService } from '../../lib/lanes.service';
import { LaneKeys } from '../../lib/redis/lane-keys';
import { shardOf } from '../../lib/shards/shard-hash';

/** A LanesService on a test connection, with quiet logs. */
export function lanesOn(client: IORedis, options: EchoMqModuleOptions = {}): LanesService {
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  return new LanesService(client, resolveEchoMqOptions({ logger: quiet, ...options }));
}

/** A unique queue name for one test. */
export const testQueue = (): string => `test-${randomUUID()}`;

/** Every key of a queue, with its type and contents, to compare before and after. */
export async function snapshot(client: IORedis, queue: string, prefix = 'emq'): Promise<Record<string, unknown>> {
  const keys = (await client.keys(new LaneKeys(prefix, queue).pattern())).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await client.type(key);
    if (type === 'hash') out[key] = await client.hgetall(key);
    else if (type === 'zset') out[key] = await client.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'list') out[key] = await client.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await client.smembers(key)).sort();
    else out[key] = await client.get(key);
  }
  return out;
}

/** Deletes every key of a queue (of each of its shards, when it was sharded). */
export async function dropQueue(client: IORedis, queue: string, prefix = 'emq'): Promise<void> {
  const k = new LaneKeys(prefix, queue);
  // NOTE: shards i >= 1 are tagged {q{i}: the same pattern, '{' and a shard number in place of '}'.
  const keys = [...await client.keys(k.pattern()), ...await client.keys(k.pattern().replace(/\}:\*$/, '{*'))];
  // NOTE: in chunks, a queue of 100,000 lanes has more keys than one call's arguments may spread.
  for (let i = 0; i < keys.length; i += 10_000) await client.del(...keys.slice(i, i + 10_000));
}

/** A lane row as a later read of the same lane gives it: its pending head (headWaitMs) has aged meanwhile. */
export const sameLane = (l: LaneInfo): LaneInfo =>
  ({ ...l, headWaitMs: l.headWaitMs === null ? null : expect.any(Number) }) as LaneInfo;

/** Lane names `${prefix}${i}` that land in each of the `n` shards of a sharded queue, `per` of them each. */
export function lanesPerShard(n: number, per: number, prefix = 'lane-'): string[][] {
  const out: string[][] = Array.from({ length: n }, () => []);
  for (let i = 0; out.some((l) => l.length < per); i++) {
    const s = shardOf(`${prefix}${i}`, n);
    if (out[s].length < per) out[s].push(`${prefix}${i}`);
  }
  return out;
}
