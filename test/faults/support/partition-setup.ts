import type { INestApplication } from '@nestjs/common';
import { resolveEchoMqOptions } from '../../../lib/echomq.options';
import type { EchoMqModuleOptions } from '../../../lib/interfaces';
import { LanesService } from '../../../lib/lanes.service';
import { closeRedisClient, createRedisClient } from '../../../lib/redis/redis-connection';
import type { RedisClient } from '../../../lib/scripts/lane-scripts';
import { PartitionProxy } from '../../support/partition-proxy';
import { TestRedisServer } from '../../support/redis-server';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** What each partition test gets: its own server, a proxy in front of it, and what it opened. */
export interface PartitionFixture {
  server: TestRedisServer;
  proxy: PartitionProxy;
  apps: INestApplication[];
  clients: RedisClient[];
  /** A LanesService of the test's own (no loops), on its own connection to `url`, closed after the test. */
  lanes(url: string, options?: EchoMqModuleOptions): LanesService;
}

/** A fresh server and proxy for every test; apps, connections, proxy and server are all gone after it. */
export function partitionFixture(): PartitionFixture {
  const f = { apps: [], clients: [] } as unknown as PartitionFixture;
  f.lanes = (url, options = {}) => {
    const client = createRedisClient(url, 'faults-partition');
    client.on('error', () => undefined);
    f.clients.push(client);
    return new LanesService(client, resolveEchoMqOptions({ connection: url, logger: quiet, ...options }));
  };
  beforeEach(async () => {
    f.server = await TestRedisServer.start();
    f.proxy = await PartitionProxy.start(f.server.port);
  });
  afterEach(async () => {
    // NOTE: heal first, so nothing the test left dark holds a close up.
    f.proxy.heal();
    await Promise.all(f.apps.splice(0).map((a) => a.close()));
    await Promise.all(f.clients.splice(0).map((c) => closeRedisClient(c)));
    await f.proxy.stop();
    await f.server.stop();
  });
  return f;
}
