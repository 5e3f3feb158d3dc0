import { spawn } from 'child_process';
import { join } from 'path';
import { until } from '../support/nest';
import { TestRedisServer } from '../support/redis-server';

/** How long a child may live on after printing its boot error. */
const EXIT_WITHIN_MS = 5_000;

interface Run {
  out: string;
  code: number | null;
  /** Milliseconds from the boot error being printed to the process's exit. */
  exitedAfterMs: number;
}

/**
 * Runs test/fixtures/failed-boot-child.ts, whose boot fails; resolves once it exits, and rejects
 * (killing it) when it is still alive EXIT_WITHIN_MS after printing its boot error.
 */
function runFailingBoot(url: string, how: string, misuse: string): Promise<Run> {
  const child = spawn(process.execPath,
    ['-r', join(__dirname, '../support/ts-register.js'), join(__dirname, '../fixtures/failed-boot-child.ts'), url, how, misuse],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let failedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  return new Promise<Run>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (failedAt || !out.includes('boot failed:')) return;
      failedAt = Date.now();
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the child (${how}, ${misuse}) was still running ${EXIT_WITHIN_MS} ms after its boot failed:\n${out}`));
      }, EXIT_WITHIN_MS);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!failedAt) reject(new Error(`the child (${how}, ${misuse}) exited without a boot error (code ${code}):\n${out}`));
      else resolve({ out, code, exitedAfterMs: Date.now() - failedAt });
    });
  });
}

/**
 * A boot that fails after EchoMQ's providers were built: Nest runs no shutdown hook when a boot
 * fails, so EchoMQ opens nothing while the providers are built, and closes what it opened itself
 * when its own checks refuse a consumer at init. The process exits on its own, the way a user sees it.
 */
describe('a failed boot', () => {
  let server: TestRedisServer;

  beforeAll(async () => {
    server = await TestRedisServer.start();
  });

  afterEach(async () => {
    const c = server.client();
    await c.flushall();
    await c.quit();
  });

  afterAll(async () => {
    await server.stop();
  });

  it.each([
    ['factory', 'event', /^boot failed: EchoMqError MISCONFIGURED: BogusEventWorker\.onBogus is marked @OnLaneEvent\("bogus"\), which is not an event/m],
    ['context', 'duplicate', /^boot failed: EchoMqError MISCONFIGURED: Twin is registered twice as a consumer of "failed-boot"/m],
    ['testing', 'event', /^boot failed: EchoMqError MISCONFIGURED: BogusEventWorker\.onBogus is marked @OnLaneEvent\("bogus"\)/m],
    // Not EchoMQ's error: a provider of the app that cannot be built, while EchoMQ's are built too.
    ['factory', 'construct', /^boot failed: Error : CannotBuild: no config$/m],
    ['testing', 'construct', /^boot failed: Error : CannotBuild: no config$/m],
  ])('leaves nothing open: the process exits by itself (%s, %s)', async (how, misuse, message) => {
    const run = await runFailingBoot(server.url, how, misuse);
    expect(run.out).toMatch(message);
    expect(run.code).toBe(0);
    expect(run.exitedAfterMs).toBeLessThan(EXIT_WITHIN_MS);
    // Nothing logged after the error: no start-up step complains about the connection it lost.
    expect(run.out.split('\n').filter((l) => l && !l.startsWith('boot failed:'))).toEqual([]);
    // The server holds nothing of it: no connection, and no job-id node number leased.
    const probe = server.client();
    try {
      await until(async () => !/name=echomq:/.test(String(await probe.client('LIST'))), 5_000, 'the child\'s connections to go');
      expect(await probe.keys('*')).toEqual([]);
    } finally {
      await probe.quit();
    }
  });
});
