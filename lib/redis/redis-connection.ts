import IORedis, { Cluster, RedisOptions } from 'ioredis';
import type { EchoMqClusterConnection, ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';

/** @internal Whether a connection option names a Redis Cluster. */
export function isClusterConnection(c: ResolvedEchoMqOptions['connection']): c is EchoMqClusterConnection {
  return typeof c === 'object' && c !== null && Array.isArray((c as EchoMqClusterConnection).cluster);
}

/**
 * @internal Opens a connection from the module's `connection` option. `blocking` connections carry
 * the idle consumers' BRPOP, so they never time out a command and never queue commands offline.
 * A `lazy` one opens no socket until `connect()` or its first command.
 */
export function createRedisClient(connection: ResolvedEchoMqOptions['connection'], name: string, lazy = false): RedisClient {
  const base: RedisOptions = {
    connectionName: name,
    // NOTE: calls wait through an outage instead of failing (no retry limit); ioredis re-sends the
    // commands in flight after a reconnect, and the scripts tolerate that (README, Guarantees).
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
  };
  if (isClusterConnection(connection)) {
    return new Cluster(connection.cluster, {
      ...connection.options,
      redisOptions: { ...base, ...connection.options?.redisOptions },
      clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000),
      ...(lazy ? { lazyConnect: true } : {}),
    });
  }
  if (typeof connection === 'string') return new IORedis(connection, { ...base, ...(lazy ? { lazyConnect: true } : {}) });
  return new IORedis({ ...base, ...connection, ...(lazy ? { lazyConnect: true } : {}) });
}

/** @internal Quits a connection, or disconnects it when it is not connected. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  // NOTE: disconnecting an ended client again arms a 2 s timer in ioredis that nothing clears.
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}
