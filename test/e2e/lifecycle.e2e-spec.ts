import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { spawn } from 'child_process';
import { join } from 'path';
import { EchoMqModule, LaneConsumer, LaneJob, LanesService, Weighted } from '../../lib';
import { ClaimLoopOrchestrator } from '../../lib/runner/claim-loop.orchestrator';
import { TestRedisServer } from '../support/redis-server';
import { bootApp, gate, nestFixture, socketsTo, until } from '../support/nest';

const held = { gate: gate(), started: [] as LaneJob[], finished: [] as string[] };

@LaneConsumer('life-slow', { concurrency: 2 })
@Injectable()
class SlowWorker {
  async handle(job: LaneJob): Promise<void> {
    held.started.push(job);
    await held.gate.promise;
    held.finished.push(job.id);
  }
}

const timing = { handledAt: [] as number[] };

@LaneConsumer('life-idle-a')
@Injectable()
class IdleA {
  async handle(): Promise<void> {
    timing.handledAt.push(performance.now());
  }
}

@LaneConsumer('life-idle-b')
@Injectable()
class IdleB {
  async handle(): Promise<void> {
    timing.handledAt.push(performance.now());
  }
}

const renewal = { calls: [] as LaneJob[] };

@LaneConsumer('life-long', { leaseMs: 300, concurrency: 1 })
@Injectable()
class LongWorker {
  async handle(job: LaneJob): Promise<void> {
    renewal.calls.push(job);
    await new Promise((r) => setTimeout(r, 1_200));
  }
}

const recovered = { jobs: [] as LaneJob[] };

@LaneConsumer('life-crash')
@Injectable()
class RecoveryWorker {
  async handle(job: LaneJob): Promise<void> {
    recovered.jobs.push(job);
  }
}

async function bootFails(providers: unknown[]): Promise<string> {
  const mod = await Test.createTestingModule({
    imports: [EchoMqModule.forRoot({ connection: server.url, logger: { log() {}, warn() {}, error() {} } })],
    providers: providers as never[],
  }).compile();
  const app = mod.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (err) {
    await app.close().catch(() => undefined);
    return (err as Error).message;
  }
  await app.close();
  throw new Error('the application booted');
}

let server: TestRedisServer;

describe('lifecycle of claim loops', () => {
  const fixture = nestFixture();
  const { apps } = fixture;
  beforeAll(() => {
    ({ server } = fixture);
  });

  it('app.close() waits for in-flight handlers, then leaves no connection open', async () => {
    held.gate = gate();
    const { app } = await bootApp(server.url, [SlowWorker]);
    const lanes = app.get(LanesService);
    await lanes.submit('life-slow', 'a', 1);
    await lanes.submit('life-slow', 'b', 2);
    await until(() => held.started.length === 2, 5_000, 'both handlers to start');
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    // A window in which close must not finish, since both handlers are still held.
    await new Promise((r) => setTimeout(r, 150));
    expect(closed).toBe(false);
    held.gate.open();
    await closing;
    expect(held.finished).toHaveLength(2);
    // quit() resolves on the server's OK; the socket itself closes a moment later.
    await until(() => socketsTo(server.port) === 0, 1_000, 'every socket to close');
    const c = server.client();
    expect(await c.hget('emq:{life-slow}:stats', 'completed')).toBe('2');
    expect(await c.zcard('emq:{life-slow}:active')).toBe(0);
    await c.quit();
    // A call after close is refused as the library's error, saying why.
    await expect(lanes.submit('life-slow', 'a', 3)).rejects.toMatchObject({ name: 'EchoMqError', code: 'UNAVAILABLE', message: expect.stringMatching(/connection to Redis is closed.*app\.close\(\)/) });
  });

  it('gives the job-id node number back as the loops begin to stop, not after they stopped (Nest 12 runs the loops\' hook first, alone)', async () => {
    held.gate = gate();
    held.started.length = 0;
    const { app } = await bootApp(server.url, [SlowWorker], { shutdownTimeoutMs: 2_000 });
    apps.push(app);
    await app.get(LanesService).submit('life-slow', 'a', 1);
    await until(() => held.started.length === 1, 5_000, 'the handler to start');
    const c = server.client();
    const numbers = async () => Object.keys(await c.hgetall('emq:node-leases')).filter((f) => f !== 'next');
    expect(await numbers()).toHaveLength(1);
    // The loops' shutdown alone, as Nest 12 calls it before LanesService's: its handler holds it up to 2 s.
    let stopped = false;
    const stopping = app.get(ClaimLoopOrchestrator).beforeApplicationShutdown().then(() => (stopped = true));
    await until(async () => (await numbers()).length === 0, 1_000, 'the node number to be given back');
    expect(stopped).toBe(false);
    held.gate.open();
    await stopping;
    await c.quit();
  });

  it('hands back the jobs of handlers still running at shutdownTimeoutMs, to be served again', async () => {
    held.gate = gate();
    held.started.length = 0;
    const { app, logger } = await bootApp(server.url, [SlowWorker], { shutdownTimeoutMs: 100 });
    const lanes = app.get(LanesService);
    const id = await lanes.submit('life-slow', 'a', 1);
    await until(() => held.started.length === 1, 5_000, 'the handler to start');
    await app.close();
    expect(logger.text('warn')).toContain('handed back');
    const c = server.client();
    expect(await c.hmget(`emq:{life-slow}:job:${id}`, 'state', 'attempts', 'base')).toEqual(['pending', '1', '1']);
    expect(await c.zrange('emq:{life-slow}:g:a:pending', 0, -1)).toEqual([id]);
    await c.quit();
    // The next consumer gets it with a higher attempt (the first token is stale).
    held.gate.open();
    const next = await bootApp(server.url, [SlowWorker]);
    apps.push(next.app);
    await until(() => held.started.length === 2, 5_000, 'the job to be served again');
    expect(held.started[1]).toMatchObject({ id, attempt: 2 });
  });

  it('app.close() while the server is down ends within its shutdown time instead of waiting for the server', async () => {
    const own = await TestRedisServer.start();
    try {
      held.gate = gate();
      held.started.length = 0;
      const { app, logger } = await bootApp(own.url, [SlowWorker], { shutdownTimeoutMs: 300 });
      await app.get(LanesService).submit('life-slow', 'a', 1);
      await until(() => held.started.length === 1, 5_000, 'the handler to start');
      await own.kill();
      const closing = Date.now();
      await app.close();
      // NOTE: 300 ms for the handler, 2 s for the server (the least a stop gives it), 2 s more for
      // the hand-back, up to 1 s for the node lease.
      expect(Date.now() - closing).toBeLessThan(7_000);
      expect(logger.text('warn')).toContain('the server did not answer within 2000 ms of the shutdown; stopping anyway');
    } finally {
      held.gate.open();
      await own.stop();
    }
  });

  it('fails the boot, naming the class, on misuse', async () => {
    @LaneConsumer('life-misuse')
    @Injectable()
    class NoHandle {}
    @Weighted()
    @Injectable()
    class WeightOnly {
      async handle(): Promise<void> {}
    }
    @LaneConsumer('bad{queue}')
    @Injectable()
    class BadQueue {
      async handle(): Promise<void> {}
    }
    @LaneConsumer('life-misuse', { concurrency: 0 })
    @Injectable()
    class BadConcurrency {
      async handle(): Promise<void> {}
    }
    expect(await bootFails([NoHandle])).toMatch(/NoHandle .*no handle\(job\) method/);
    expect(await bootFails([WeightOnly])).toMatch(/WeightOnly is marked @Weighted\(\) but not @LaneConsumer/);
    expect(await bootFails([BadQueue])).toMatch(/BadQueue has an invalid @LaneConsumer queue name "bad\{queue\}"/);
    expect(await bootFails([BadConcurrency])).toMatch(/BadConcurrency has an invalid @LaneConsumer option "concurrency"/);
  });

  it('idle consumers block on the server: almost no commands, and a submit wakes them at once', async () => {
    const { app } = await bootApp(server.url, [IdleA, IdleB]);
    apps.push(app);
    const lanes = app.get(LanesService);
    const probe = server.client();
    await until(async () => ((await probe.client('LIST')) as string).split('cmd=brpop').length - 1 === 2, 5_000, 'both loops to block');
    const count = async () => Number(/total_commands_processed:(\d+)/.exec(await probe.info('stats'))![1]);
    const windowMs = 3_000;
    const before = await count();
    await new Promise((r) => setTimeout(r, windowMs));
    const after = await count();
    // Minus the INFO commands of this probe itself.
    const perConsumerPerSecond = (after - before - 1) / 2 / (windowMs / 1000);
    process.stdout.write(`idle: ${perConsumerPerSecond.toFixed(2)} commands/s per consumer\n`);
    expect(perConsumerPerSecond).toBeLessThanOrEqual(1);

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      await until(async () => ((await probe.client('LIST')) as string).split('cmd=brpop').length - 1 === 2, 5_000, 'loops to block');
      const n = timing.handledAt.length;
      const t0 = performance.now();
      await lanes.submit('life-idle-a', 'g', i);
      await until(() => timing.handledAt.length > n, 2_000, 'the woken handler');
      latencies.push(timing.handledAt[n] - t0);
    }
    await probe.quit();
    latencies.sort((a, b) => a - b);
    process.stdout.write(`wake: submit -> handler ${latencies.map((l) => l.toFixed(1)).join(', ')} ms\n`);
    // The idle block is 5 s: a poller would take seconds; a woken loop takes milliseconds.
    expect(latencies[latencies.length - 1]).toBeLessThan(500);
  });

  it('renews the lease of a handler that outlives it, so it is not served twice', async () => {
    const a = await bootApp(server.url, [LongWorker], { idleBlockMs: 100 });
    const b = await bootApp(server.url, [LongWorker], { idleBlockMs: 100 });
    apps.push(a.app, b.app);
    const lanes = a.app.get(LanesService);
    await lanes.submit('life-long', 'g', 'slow');
    await until(async () => (await lanes.stats('life-long')).totals.completed === 1, 5_000, 'the long job');
    expect(renewal.calls).toHaveLength(1);
    expect(renewal.calls[0].attempt).toBe(1);
  });

  it('serves again, with attempt 2, a job whose consumer process was SIGKILLed mid-job', async () => {
    const seed = await bootApp(server.url, []);
    const id = await seed.app.get(LanesService).submit('life-crash', 'g', { crash: true });
    await seed.app.close();
    const child = spawn(process.execPath,
      ['-r', join(__dirname, '../support/ts-register.js'), join(__dirname, '../fixtures/child-consumer.ts'), server.url, 'life-crash'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await until(() => out.includes(`started ${id} 1`), 20_000, 'the child to take the job');
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    const { app } = await bootApp(server.url, [RecoveryWorker], { idleBlockMs: 200 });
    apps.push(app);
    await until(() => recovered.jobs.length === 1, 10_000, 'the job to come back');
    expect(recovered.jobs[0]).toMatchObject({ id, attempt: 2, payload: { crash: true } });
  });
});
