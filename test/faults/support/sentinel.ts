import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import IORedis from 'ioredis';
import { freePort, TestRedisServer } from '../../support/redis-server';
import { HeldLink } from './held-link';
import { waitFor } from './wait';

/** The name the sentinels monitor the primary under. */
export const MASTER_NAME = 'emq-primary';

/**
 * How to start a sentinel with a config file: REDIS_SENTINEL_BIN; else, in a server matrix run
 * (REDIS_SERVER_BIN), that server binary in sentinel mode; else Debian's redis-sentinel.
 */
function sentinelCommand(conf: string): [string, string[]] {
  if (process.env.REDIS_SENTINEL_BIN) return [process.env.REDIS_SENTINEL_BIN, [conf]];
  if (process.env.REDIS_SERVER_BIN) return [process.env.REDIS_SERVER_BIN, [conf, '--sentinel']];
  return ['redis-sentinel', [conf]];
}

interface Sentinel {
  port: number;
  child: ChildProcess;
}

/**
 * One primary, one replica and three sentinels (quorum 2), all on loopback ports of their own.
 * The sentinels mark the primary down 400 ms after it stops answering and promote the replica.
 */
export class SentinelSet {
  private readonly sentinels: Sentinel[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'echomq-sentinel-'));
  private admin?: IORedis;
  /** The first replica's link to the first primary. */
  readonly link?: HeldLink;

  private constructor(readonly servers: TestRedisServer[]) {}

  /** Starts the set; the replica reaches the primary through a {@link HeldLink}. */
  static async start(): Promise<SentinelSet> {
    // NOTE: a replica's full sync otherwise waits 5 s (diskless sync delay) for more replicas to join.
    const serverArgs = ['--repl-diskless-sync-delay', '0'];
    const primary = await TestRedisServer.start(serverArgs);
    const link = await HeldLink.start(primary.port);
    const replica = await TestRedisServer.start([...serverArgs, '--replicaof', '127.0.0.1', String(link.port)]);
    const set = new SentinelSet([primary, replica]);
    (set as { link?: HeldLink }).link = link;
    try {
      for (let i = 0; i < 3; i++) await set.startSentinel(primary.port, i);
      await set.settled(primary.port);
    } catch (err) {
      await set.stop();
      throw err;
    }
    return set;
  }

  /** What the module's `connection` takes to reach the primary through the sentinels. */
  get connection(): { sentinels: { host: string; port: number }[]; name: string } {
    return { sentinels: this.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })), name: MASTER_NAME };
  }

  /** The port of the server the sentinels report as primary now. */
  async primaryPort(): Promise<number> {
    const addr = (await this.sentinelClient().call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as string[] | null;
    return Number(addr?.[1] ?? 0);
  }

  /**
   * SIGKILLs the primary and, in the same tick, cuts its replication link (what was still on it is
   * lost, as in a host crash). Resolves once the process has exited.
   */
  crashPrimary(primary: TestRedisServer): Promise<void> {
    const killed = primary.kill('SIGKILL');
    if (primary === this.servers[0]) this.link?.cut();
    return killed;
  }

  /** The test server that is primary now. */
  async primary(): Promise<TestRedisServer> {
    const port = await this.primaryPort();
    const server = this.servers.find((s) => s.port === port);
    if (!server) throw new Error(`the sentinels report an unknown primary on port ${port}`);
    return server;
  }

  /**
   * Waits until every sentinel reports a primary other than `oldPort`, none has a failover in
   * progress, and the new primary answers ROLE as master. NOTE: a server restarted before the
   * failover has ended can make the sentinels fail over a second time, back to it.
   */
  async failedOver(oldPort: number, timeoutMs = 20_000): Promise<TestRedisServer> {
    return waitFor('the sentinels to promote the replica', async () => {
      const port = await this.primaryPort();
      if (port === oldPort) return undefined;
      for (const s of this.sentinels) {
        const c = new IORedis(s.port, '127.0.0.1', { maxRetriesPerRequest: 2 });
        try {
          const fields = (await c.call('SENTINEL', 'MASTER', MASTER_NAME)) as string[];
          const info = new Map<string, string>();
          for (let i = 0; i < fields.length; i += 2) info.set(fields[i], fields[i + 1]);
          if (Number(info.get('port')) !== port || info.get('flags') !== 'master') return undefined;
        } finally {
          c.disconnect();
        }
      }
      const server = this.servers.find((s) => s.port === port)!;
      const c = server.client();
      try {
        const role = (await c.call('ROLE')) as unknown[];
        return role[0] === 'master' ? server : undefined;
      } finally {
        c.disconnect();
      }
    }, { timeoutMs, intervalMs: 20 });
  }

  /**
   * Starts a killed server again (empty: no persistence) as a replica of the current primary, as an
   * operator would; the sentinels alone take some 8 s or more to convert a returning old primary.
   */
  async rejoin(server: TestRedisServer): Promise<void> {
    await server.launch();
    const c = server.client();
    try {
      await c.call('REPLICAOF', '127.0.0.1', String(await this.primaryPort()));
    } finally {
      c.disconnect();
    }
    await this.replicating(server);
  }

  /** Waits until `server` replicates the current primary with its link up (after a restart, say). */
  async replicating(server: TestRedisServer, timeoutMs = 20_000): Promise<void> {
    const primaryPort = await this.primaryPort();
    await waitFor(`the server on ${server.port} to replicate the primary on ${primaryPort}`, async () => {
      const c = server.client();
      try {
        const role = (await c.call('ROLE')) as unknown[];
        const via = this.link && server === this.servers[1] && primaryPort === this.servers[0].port ? this.link.port : primaryPort;
        if (role[0] === 'slave' && Number(role[2]) === via && role[3] === 'connected') return true;
        throw new Error(`ROLE ${JSON.stringify(role)}`);
      } finally {
        c.disconnect();
      }
    }, { timeoutMs, intervalMs: 50 });
  }

  async stop(): Promise<void> {
    this.admin?.disconnect();
    await this.link?.stop();
    for (const s of this.sentinels) {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        await new Promise<void>((resolve) => {
          s.child.once('exit', () => resolve());
          s.child.kill('SIGKILL');
        });
      }
    }
    await Promise.all(this.servers.map((s) => s.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private sentinelClient(): IORedis {
    this.admin ??= new IORedis(this.sentinels[0].port, '127.0.0.1', { maxRetriesPerRequest: 2, lazyConnect: false });
    return this.admin;
  }

  private async startSentinel(primaryPort: number, i: number): Promise<void> {
    const port = await freePort();
    const conf = join(this.dir, `sentinel-${i}.conf`);
    writeFileSync(conf, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${this.dir}`, 'loglevel warning',
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} 400`,
      `sentinel failover-timeout ${MASTER_NAME} 4000`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`, '',
    ].join('\n'));
    const [bin, args] = sentinelCommand(conf);
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    const spawnError = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`sentinel "${bin}" did not start: ${e.message}`))));
    this.sentinels.push({ port, child });
    await Promise.race([spawnError, waitFor(`sentinel ${i} on port ${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`sentinel exited at start: ${stderr}`);
      const c = new IORedis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
      c.on('error', () => undefined);
      try {
        await c.connect();
        return (await c.ping()) === 'PONG';
      } finally {
        c.disconnect();
      }
    }, { timeoutMs: 10_000, intervalMs: 20 })]);
  }

  /** Waits until the replica is in sync and every sentinel knows the replica and the two others. */
  private async settled(primaryPort: number): Promise<void> {
    await this.replicating(this.servers[1]);
    for (const s of this.sentinels) {
      const c = new IORedis(s.port, '127.0.0.1', { maxRetriesPerRequest: 2 });
      try {
        await waitFor(`sentinel on ${s.port} to see the replica and two sentinels`, async () => {
          const replicas = (await c.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as unknown[];
          const others = (await c.call('SENTINEL', 'SENTINELS', MASTER_NAME)) as unknown[];
          return replicas.length === 1 && others.length === 2;
        }, { timeoutMs: 15_000, intervalMs: 50 });
      } finally {
        c.disconnect();
      }
    }
    if ((await this.primaryPort()) !== primaryPort) throw new Error('the sentinels disagree on the primary at start');
  }
}
