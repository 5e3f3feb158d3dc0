import { Inject, Injectable, LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { echoMqLogger } from '../echomq.logger';
import { ECHOMQ_MODULE_OPTIONS } from '../echomq.constants';
import type { ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';
import { checkConnectionAtStart } from './connection-check';
import { closeRedisClient, createRedisClient, dropRedisClient } from './redis-connection';

const ERROR_LOG_EVERY_MS = 10_000;
/**
 * How long the boot waits for the server before going on without it: one deadline for the
 * connection's first outcome and the start-up commands after it (the job-id node lease).
 */
const START_WAIT_MS = 3_000;

/**
 * @internal Owns every connection of the module: one for commands, opened at init, and one per
 * claim loop for its blocking wait. All are quit at application shutdown, after the loops stopped,
 * or dropped at once when the boot fails in EchoMQ's own checks (see {@link abortBoot}).
 */
@Injectable()
export class EchoMqConnections implements OnModuleInit, OnApplicationShutdown {
  /** The command connection (LanesService and the loops' non-blocking calls). */
  readonly client: RedisClient;
  private readonly others = new Set<RedisClient>();
  private readonly logger: LoggerService;
  private startBy?: number;

  constructor(@Inject(ECHOMQ_MODULE_OPTIONS) private readonly options: ResolvedEchoMqOptions) {
    this.logger = echoMqLogger(options);
    // NOTE: made here, opened at init: a boot that fails before init (a provider that cannot be
    // built) runs no hook of the module, so a socket opened now would stay open and keep the process.
    this.client = this.watch(createRedisClient(options.connection, 'echomq:commands', true), 'echomq:commands');
  }

  /**
   * Opens the command connection. Fails the boot when it cannot succeed (an untrusted certificate,
   * refused credentials), closing it so nothing keeps retrying; a server that is merely down does not.
   */
  async onModuleInit(): Promise<void> {
    // NOTE: connect() rejects at the first error while ioredis goes on retrying; errors are logged
    // by watch() and judged by checkConnectionAtStart. A command sent earlier connected it already.
    if (this.client.status === 'wait') this.client.connect().catch(() => undefined);
    this.startBy = Date.now() + START_WAIT_MS;
    try {
      await checkConnectionAtStart(this.client, 'echomq:commands', START_WAIT_MS);
    } catch (err) {
      await this.onApplicationShutdown();
      throw err;
    }
  }

  /**
   * When the boot stops waiting for a server that does not answer (ms since epoch): the start-up
   * commands share the connection's wait instead of adding their own after it.
   */
  get startDeadline(): number {
    return (this.startBy ??= Date.now() + START_WAIT_MS);
  }

  /** Opens a further connection (a claim loop's blocking wait), closed with the module. */
  open(name: string): RedisClient {
    const client = this.watch(createRedisClient(this.options.connection, name), name);
    this.others.add(client);
    return client;
  }

  /** Closes one connection opened with open(). */
  async close(client: RedisClient): Promise<void> {
    this.others.delete(client);
    await closeRedisClient(client);
  }

  /**
   * Drops every connection at once, for a boot that failed: Nest runs no shutdown hook then (and
   * `app.close()` only rethrows the boot's error), so a connection left open would keep the process
   * alive for good. Synchronous, so that a start-up command issued after it (the job-id node lease)
   * is refused instead of reaching the server.
   */
  abortBoot(): void {
    const all = [...this.others, this.client];
    this.others.clear();
    for (const c of all) dropRedisClient(c);
  }

  /** Quits every connection together, each within closeRedisClient's bound (a dead path answers no QUIT). */
  async onApplicationShutdown(): Promise<void> {
    const all = [...this.others, this.client];
    this.others.clear();
    await Promise.all(all.map((c) => closeRedisClient(c)));
  }

  /** Logs connection errors, at most one line per connection every few seconds. */
  private watch(client: RedisClient, name: string): RedisClient {
    let last = 0;
    client.on('error', (err: Error) => {
      const now = Date.now();
      if (now - last < ERROR_LOG_EVERY_MS) return;
      last = now;
      this.logger.warn(`Redis connection ${name}: ${err.message} (ioredis reconnects by itself)`);
    });
    return client;
  }
}
