import type { INestApplication, LoggerService, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { EchoMqModule, EchoMqModuleOptions } from '../../lib';
import { TestRedisServer } from './redis-server';

/** A logger that keeps what it was told, for assertions, and prints nothing. */
export class CapturingLogger implements LoggerService {
  readonly lines: { level: string; message: string }[] = [];
  log(message: unknown): void { this.lines.push({ level: 'log', message: String(message) }); }
  warn(message: unknown): void { this.lines.push({ level: 'warn', message: String(message) }); }
  error(message: unknown): void { this.lines.push({ level: 'error', message: String(message) }); }
  debug(message: unknown): void { this.lines.push({ level: 'debug', message: String(message) }); }
  verbose(message: unknown): void { this.lines.push({ level: 'verbose', message: String(message) }); }
  text(level?: string): string { return this.lines.filter((l) => !level || l.level === level).map((l) => l.message).join('\n'); }
}

/** Boots a Nest application with EchoMqModule and the given providers. */
export async function bootApp(
  url: string, providers: Type<unknown>[], options: EchoMqModuleOptions = {},
): Promise<{ app: INestApplication; logger: CapturingLogger }> {
  const logger = new CapturingLogger();
  const mod = await Test.createTestingModule({
    imports: [EchoMqModule.forRoot({ connection: url, logger, ...options })],
    providers,
  }).compile();
  mod.useLogger(logger);
  const app = mod.createNestApplication({ logger });
  await app.init();
  return { app, logger };
}

/** Waits until `check` returns true, polling every 10 ms; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A promise with its resolve function, to hold a handler until a test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** Open sockets of this process to a port (to show a closed app left nothing behind). */
export function socketsTo(port: number): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h) => (h as { remotePort?: number }).remotePort === port).length;
}

/** What {@link nestFixture} gives a test file; `server` is set before its first test runs. */
export interface NestFixture {
  server: TestRedisServer;
  /** Apps a test booted: closed after each test, before the server is flushed. */
  apps: INestApplication[];
}

/** One private redis-server for a file of app tests; each test's apps are closed and the data flushed after it. */
export function nestFixture(): NestFixture {
  const fixture = { apps: [] } as unknown as NestFixture;
  beforeAll(async () => {
    fixture.server = await TestRedisServer.start();
  });
  afterEach(async () => {
    await Promise.all(fixture.apps.splice(0).map((a) => a.close()));
    const c = fixture.server.client();
    await c.flushall();
    await c.quit();
  });
  afterAll(async () => {
    await fixture.server.stop();
  });
  return fixture;
}
