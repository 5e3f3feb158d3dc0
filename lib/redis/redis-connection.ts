import IORedis, { Cluster, RedisOptions } from 'ioredis';
import type { EchoMqClusterConnection, EchoMqExistingClient, ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';

/** @internal Whether a connection option names a Redis Cluster. */
export function isClusterConnection(c: ResolvedEchoMqOptions['connection']): c is EchoMqClusterConnection {
  return typeof c === 'object' && c !== null && Array.isArray((c as EchoMqClusterConnection).cluster);
}

/**
 * @internal Whether a connection option is a client the application made (ioredis `Redis` or `Cluster`,
 * or iovalkey's): the module duplicates it for each connection of its own and never closes it.
 */
export function isExistingClient(c: ResolvedEchoMqOptions['connection']): c is EchoMqExistingClient {
  const client = c as Partial<EchoMqExistingClient> | null;
  return typeof c === 'object' && c !== null && typeof client!.duplicate === 'function' && typeof client!.sendCommand === 'function';
}

/** @internal Whether the connection option leads to a Redis Cluster (options or an existing Cluster client). */
export function connectsToCluster(c: ResolvedEchoMqOptions['connection']): boolean {
  return isClusterConnection(c) || (isExistingClient(c) && c.isCluster === true);
}

/**
 * @internal A new connection like `client`, with `override` on top of its options (ioredis and iovalkey
 * alike: `Redis.duplicate(options)`, `Cluster.duplicate(nodes, options)`).
 */
export function duplicateClient(client: EchoMqExistingClient | RedisClient, override: RedisOptions = {}): RedisClient {
  if (client.isCluster) {
    const cluster = client as unknown as { options: { redisOptions?: RedisOptions; lazyConnect?: boolean }; duplicate(nodes?: unknown, options?: object): RedisClient };
    const { lazyConnect, ...redisOverride } = override;
    return cluster.duplicate(undefined, {
      ...cluster.options,
      redisOptions: { ...cluster.options.redisOptions, ...redisOverride },
      ...(lazyConnect ? { lazyConnect } : {}),
    });
  }
  return (client as unknown as { duplicate(options?: object): RedisClient }).duplicate(override);
}

/**
 * @internal Opens a connection from the module's `connection` option (the command connection, or
 * one that carries an idle consumer's BRPOP: see ClaimLoop's IDLE_OVERDUE_MS for what a reconnect
 * does to one in flight). A `lazy` one opens no socket until `connect()` or its first command.
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
  // NOTE: on a client's duplicate our settings win: its options hold ioredis's defaults filled in
  // (maxRetriesPerRequest 20, …), which cannot be told from choices, and calls must wait through an outage.
  if (isExistingClient(connection)) return duplicateClient(connection, { ...base, ...(lazy ? { lazyConnect: true } : {}) });
  if (isClusterConnection(connection)) {
    return new Cluster(connection.cluster, {
      // NOTE: a call on a master that failed is retried every retryDelayOnFailover ms, maxRedirections
      // times in all (ioredis: 100 ms, 16 times: 1.6 s, shorter than a failover). These wait about
      // 30 s, through a failover of the default cluster-node-timeout (15 s); the caller's win.
      retryDelayOnFailover: 200,
      maxRedirections: 150,
      ...connection.options,
      redisOptions: { ...base, ...connection.options?.redisOptions },
      clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000),
      ...(lazy ? { lazyConnect: true } : {}),
    });
  }
  if (typeof connection === 'string') return new IORedis(connection, { ...base, ...(lazy ? { lazyConnect: true } : {}) });
  return new IORedis({ ...base, ...connection, ...(lazy ? { lazyConnect: true } : {}) });
}

/**
 * @internal How long a close waits for the server to answer QUIT. A server that is up answers at
 * once; on a dead path (no FIN, no RST) nothing ever answers, and the close must still end.
 */
export const QUIT_WAIT_MS = 1_000;

/**
 * @internal Quits a connection; drops it when it is not connected, or when QUIT is not answered
 * within `quitWaitMs`. Resolves in bounded time whatever the network does.
 */
export async function closeRedisClient(client: RedisClient, quitWaitMs = QUIT_WAIT_MS): Promise<void> {
  // NOTE: disconnecting an ended client again arms a 2 s timer in ioredis that nothing clears.
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const quit = client.quit().then(() => true, () => false);
    const answered = await Promise.race([quit, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), quitWaitMs)))]);
    clearTimeout(timer);
    if (answered) return;
  }
  dropRedisClient(client);
}

/**
 * @internal Closes a connection at once, losing what it has in flight. NOTE: ioredis's disconnect()
 * ends the socket politely (a FIN) and destroys it only after a 2 s timer when the server does not
 * close its side, as on a dead path, where the socket would keep the process alive meanwhile: the
 * sockets are destroyed here instead.
 */
export function dropRedisClient(client: RedisClient): void {
  if (client.status === 'end') return;
  // NOTE: read before disconnect(): a Cluster forgets its nodes as it disconnects.
  const sockets = ('nodes' in client ? client.nodes('all') : [client]).map((c) => c.stream).filter((s) => s !== undefined);
  client.disconnect();
  for (const socket of sockets) socket.destroy();
}
