import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../scripts/lane-scripts';

/**
 * @internal Walks the keys matching `pattern` with SCAN, a page at a time, and hands each page to
 * `onPage` before reading the next. A key that exists for the whole walk is handed over at least
 * once. On a Cluster every master is walked (the queue's slot lives on one of them).
 * NOTE: for what no index names (kept completed rows, per-second buckets, held messages): the walk
 * costs O(keys on the server), spread over pages of about `count` keys.
 */
export async function scanKeys(client: RedisClient, pattern: string, count: number, onPage: (keys: string[]) => Promise<void>): Promise<void> {
  const nodes: Redis[] = (client as Cluster).isCluster ? (client as Cluster).nodes('master') : [client as Redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) await onPage(keys);
    } while (cursor !== '0');
  }
}
