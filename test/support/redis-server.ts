import { ChildProcess, spawnSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import IORedis from 'ioredis';
import { freePort, killServer, spawnServer } from '../../lib/testing/test-server';

// NOTE: the port, the spawn and the PING wait are the public test server's (@echomq/nestjs/testing):
// users' e2e tests get the same server the project's own tests run on.
export { freePort };

/** Where redis-server lives: REDIS_SERVER_BIN, or the one on PATH. */
export function redisServerBin(): string {
  const bin = process.env.REDIS_SERVER_BIN || 'redis-server';
  const probe = spawnSync(bin, ['--version']);
  if (probe.error) {
    throw new Error(`The tests need a redis-server binary (looked for "${bin}"). Install one: apt-get install -y redis-server.`);
  }
  return bin;
}

/** A redis-server the test started itself, on a private port and a private directory. */
export class TestRedisServer {
  private child?: ChildProcess;
  readonly dir: string;

  private constructor(readonly port: number, private readonly extraArgs: string[]) {
    this.dir = mkdtempSync(join(tmpdir(), 'echomq-redis-'));
  }

  /** Starts a server on a free port with the given extra config (e.g. ['--appendonly', 'yes']). */
  static async start(extraArgs: string[] = [], port?: number): Promise<TestRedisServer> {
    const server = new TestRedisServer(port ?? (await freePort()), extraArgs);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** A new client on this server (the caller quits it). */
  client(): IORedis {
    return new IORedis(this.port, '127.0.0.1', { maxRetriesPerRequest: null });
  }

  /** Starts (or restarts) the process and waits until it answers PING. */
  async launch(): Promise<void> {
    this.child = await spawnServer(redisServerBin(), this.port, this.dir, this.extraArgs);
  }

  /** Kills the process with a signal and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child) await killServer(this.child, signal);
  }

  /** Stops the server and removes its directory. */
  async stop(): Promise<void> {
    await this.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
