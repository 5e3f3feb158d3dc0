import { ChildProcess, spawn, spawnSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { AddressInfo, connect, createServer } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import IORedis from 'ioredis';

/** Whether a server on the port answers PING (a raw socket, so no client is left behind). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Finds a free loopback port (never 6379). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    if (port !== 6379) return port;
  }
}

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
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '',
      '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning', ...this.extraArgs];
    const child = spawn(redisServerBin(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at start (port ${this.port}): ${stderr}`);
      if (await ping(this.port)) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Kills the process with a signal and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
    child.stderr?.destroy();
  }

  /** Stops the server and removes its directory. */
  async stop(): Promise<void> {
    await this.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
