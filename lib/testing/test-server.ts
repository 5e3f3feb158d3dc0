import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { AddressInfo, connect, createServer } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { EchoMqError } from '../errors';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** The server binary. @default process.env.REDIS_SERVER_BIN, else `redis-server` on the PATH (valkey-server works too) */
  bin?: string;
  /** The port. @default a free loopback port, never 6379 */
  port?: number;
  /** More server arguments, e.g. `['--maxmemory', '64mb']`. */
  args?: string[];
  /** How long to wait for the server to answer PING, in ms. @default 10_000 */
  startTimeoutMs?: number;
}

/** A throwaway server {@link startTestServer} started. */
export interface TestServer {
  /** `redis://127.0.0.1:<port>`, for `EchoMqModule.forRoot({ connection: url })`. */
  url: string;
  port: number;
  /** Kills the server and removes its data folder; safe to call twice. */
  stop(): Promise<void>;
}

/** @internal Whether a server on the port answers PING (a raw socket: no client is left behind). */
export function answersPing(port: number): Promise<boolean> {
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

/** @internal A free loopback port, never 6379 (a developer's own server). */
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

/**
 * @internal Spawns the server on `port` with its data in `dir` (no persistence, loopback only) and
 * resolves once it answers PING; rejects with its stderr when it exits or stays silent.
 */
export async function spawnServer(bin: string, port: number, dir: string, args: string[] = [], timeoutMs = 10_000): Promise<ChildProcess> {
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--protected-mode', 'yes', '--loglevel', 'warning', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const spawned = new Promise<void>((_, reject) => child.once('error', (err) => reject(new EchoMqError(
    `Could not start "${bin}" (${err.message}). Install a server (apt-get install redis-server), or name its binary (opts.bin, or REDIS_SERVER_BIN).`,
    { code: 'MISCONFIGURED', cause: err }))));
  const deadline = Date.now() + timeoutMs;
  const ready = (async () => {
    for (;;) {
      if (child.exitCode !== null) {
        throw new EchoMqError(`${bin} exited at start (port ${port}): ${stderr.trim()}. Check the arguments given (opts.args).`, { code: 'MISCONFIGURED' });
      }
      if (await answersPing(port)) return;
      if (Date.now() > deadline) {
        throw new EchoMqError(`${bin} did not answer on port ${port} within ${timeoutMs} ms: ${stderr.trim()}. Raise opts.startTimeoutMs on a slow machine.`, { code: 'TIMEOUT' });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    await Promise.race([ready, spawned]);
  } catch (err) {
    child.kill('SIGKILL');
    child.stderr?.destroy();
    throw err;
  }
  return child;
}

/** @internal Kills the process with `signal` and waits for it to exit. */
export async function killServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }
  child.stderr?.destroy();
}

/**
 * Starts a throwaway `redis-server` (or the binary `REDIS_SERVER_BIN` names) on a free loopback port,
 * never 6379, with its data in a temporary folder and no persistence: a private server for an
 * application's own e2e tests, without Docker. Stop it in `afterAll`.
 * @param opts binary, port and extra arguments
 */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const bin = opts.bin ?? (process.env.REDIS_SERVER_BIN || 'redis-server');
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'echomq-test-server-'));
  let child: ChildProcess;
  try {
    child = await spawnServer(bin, port, dir, opts.args, opts.startTimeoutMs);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await killServer(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
