import {
  CallHandler, ExecutionContext, Injectable, NestInterceptor, Provider, Type, UseInterceptors,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Observable, map, tap } from 'rxjs';
import { EchoMqModule, LaneConsumer, LaneJob, LanesService, OnLaneEvent } from '../../lib';
import { bootApp, CapturingLogger, gate, nestFixture, until } from '../support/nest';

/** Jobs completed in a queue since it began (the server's totals). */
async function completedIn(lanes: LanesService, queue: string): Promise<number> {
  return (await lanes.stats(queue)).totals.completed;
}

/** Every event and interception, in order, per test (reset before each). */
let log: string[] = [];
const timings: { type: string; jobId: string; ms: number }[] = [];

@LaneConsumer('ev-basic', { concurrency: 1, maxAttempts: 2 })
@Injectable()
class EventfulWorker {
  async handle(job: LaneJob<{ n: number; fail?: boolean }>): Promise<number> {
    if (job.payload.fail) throw new Error(`no ${job.payload.n}`);
    return job.payload.n * 10;
  }
  @OnLaneEvent('active') started(job: LaneJob): void {
    log.push(`active ${job.attempt}`);
  }
  @OnLaneEvent('completed') done(job: LaneJob<{ n: number }>, result: unknown): void {
    log.push(`completed ${job.payload.n} ${JSON.stringify(result)}`);
  }
  @OnLaneEvent('failed') failed(job: LaneJob, error: unknown, outcome: string): void {
    log.push(`failed ${job.attempt} ${(error as Error).message} ${outcome}`);
  }
  @OnLaneEvent('completed') throws(): void {
    throw new Error('listener broke');
  }
  @OnLaneEvent('completed') async rejects(): Promise<void> {
    throw new Error('listener rejected');
  }
}

const slow = { gate: gate(), handled: 0 };

@LaneConsumer('ev-slow', { concurrency: 1 })
@Injectable()
class SlowListenerWorker {
  async handle(): Promise<void> {
    slow.handled += 1;
  }
  @OnLaneEvent('active') async hang(): Promise<void> {
    await slow.gate.promise;
  }
  @OnLaneEvent('completed') async hangToo(): Promise<void> {
    await slow.gate.promise;
  }
}

const losing = { release: undefined as undefined | ((job: LaneJob) => Promise<void>) };

@LaneConsumer('ev-lost', { concurrency: 1 })
@Injectable()
class LosingWorker {
  async handle(job: LaneJob): Promise<void> {
    // The first attempt's lease is taken away while it runs (as a reaper would after a stall).
    if (job.attempt === 1) await losing.release!(job);
  }
  @OnLaneEvent('lost') lost(job: LaneJob): void {
    log.push(`lost ${job.attempt}`);
  }
  @OnLaneEvent('completed') done(job: LaneJob): void {
    log.push(`completed ${job.attempt}`);
  }
}

@LaneConsumer('ev-bad-name')
@Injectable()
class MisnamedEvent {
  async handle(): Promise<void> {}
  @OnLaneEvent('finished' as never) finished(): void {}
}

@LaneConsumer('ev-bad-member')
@Injectable()
class EventOnProperty {
  async handle(): Promise<void> {}
  @OnLaneEvent('completed') notAMethod = 42;
}

@Injectable()
class EventsWithoutConsumer {
  @OnLaneEvent('completed') done(): void {}
}

/** Measures every job, as a logging or metrics interceptor would. */
@Injectable()
class TimingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const t0 = performance.now();
    const job = context.getArgByIndex<LaneJob>(0);
    return next.handle().pipe(tap({
      next: () => timings.push({ type: context.getType(), jobId: job.id, ms: performance.now() - t0 }),
      error: () => timings.push({ type: context.getType(), jobId: job.id, ms: performance.now() - t0 }),
    }));
  }
}

/** Changes what the handler returned: the job completes with the transformed result. */
@Injectable()
class DoubleResultInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((r) => ({ doubled: (r as number) * 2 })));
  }
}

/** Refuses a job's first attempt: the job fails, then is retried. */
@Injectable()
class FirstAttemptRefuser implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const job = context.getArgByIndex<LaneJob>(0);
    if (job.attempt === 1) throw new Error('refused by interceptor');
    return next.handle();
  }
}

/** A global interceptor that opts in to jobs by their context type and leaves HTTP alone. */
@Injectable()
class GlobalJobTagger implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== 'echomq') return next.handle();
    log.push(`global saw ${context.getArgByIndex<LaneJob>(0).queue}`);
    return next.handle();
  }
}

@LaneConsumer('ic-class', { maxAttempts: 3, keepCompletedMs: 60_000 })
@UseInterceptors(TimingInterceptor, FirstAttemptRefuser)
@Injectable()
class InterceptedWorker {
  @UseInterceptors(DoubleResultInterceptor)
  async handle(job: LaneJob<number>): Promise<number> {
    log.push(`handled ${job.attempt}`);
    return job.payload + 1;
  }
  @OnLaneEvent('completed') done(_job: LaneJob, result: unknown): void {
    log.push(`completed ${JSON.stringify(result)}`);
  }
  @OnLaneEvent('failed') failed(job: LaneJob, error: unknown, outcome: string): void {
    log.push(`failed ${job.attempt} ${(error as Error).message} ${outcome}`);
  }
}

describe('events and interceptors on consumer classes', () => {
  const fixture = nestFixture();
  const { apps } = fixture;
  const boot = async (providers: (Type<unknown> | Provider)[], options = {}) => {
    const booted = await bootApp(fixture.server.url, providers as Type<unknown>[], options);
    apps.push(booted.app);
    return booted;
  };
  beforeEach(() => {
    log = [];
    timings.length = 0;
  });

  it('calls active, completed (with the result) and failed (retry, then dead); a throwing listener changes nothing', async () => {
    const { app, logger } = await boot([EventfulWorker], { backoff: { delayMs: 0 } });
    const lanes = app.get(LanesService);
    const ok = await lanes.submit('ev-basic', 'a', { n: 4 });
    await until(() => log.includes('completed 4 40'), 10_000, 'the completed event');
    await lanes.submit('ev-basic', 'a', { n: 5, fail: true });
    await until(() => log.some((l) => l.endsWith('dead')), 10_000, 'the dead outcome');
    expect(log.slice(0, 2)).toEqual(['active 1', 'completed 4 40']);
    // NOTE: with no backoff the retry may be claimed (active 2) before the first failure's reply lands.
    expect(log.slice(2).sort()).toEqual(['active 1', 'active 2', 'failed 1 no 5 retry', 'failed 2 no 5 dead']);
    expect(log[log.length - 1]).toBe('failed 2 no 5 dead');
    // The listeners that threw and rejected were logged, and the job completed all the same.
    await until(() => logger.text('error').includes('listener rejected'), 5_000, 'the rejection log');
    expect(logger.text('error')).toContain(`EventfulWorker.throws (on 'completed' of job ${ok}) threw: listener broke`);
    expect(logger.text('error')).toContain(`EventfulWorker.rejects (on 'completed' of job ${ok}) threw: listener rejected`);
    expect(await completedIn(lanes, 'ev-basic')).toBe(1);
  });

  it('a listener that never settles holds no slot', async () => {
    slow.gate = gate();
    slow.handled = 0;
    const { app } = await boot([SlowListenerWorker]);
    const lanes = app.get(LanesService);
    await lanes.submitMany('ev-slow', Array.from({ length: 5 }, (_, i) => ({ group: 'g', payload: i })));
    // Concurrency 1 and every listener still pending: the jobs complete one after another regardless.
    await until(async () => (await completedIn(lanes, 'ev-slow')) === 5, 10_000, 'five completions');
    expect(slow.handled).toBe(5);
    slow.gate.open();
  });

  it('calls lost when the lease was taken away before the completion, and the job is served again', async () => {
    const { app } = await boot([LosingWorker]);
    const lanes = app.get(LanesService);
    losing.release = async (job) => {
      await lanes.release('ev-lost', job.id, job.attempt);
    };
    await lanes.submit('ev-lost', 'g', {});
    await until(() => log.includes('completed 2'), 10_000, 'the second attempt');
    expect(log).toEqual(['lost 1', 'completed 2']);
  });

  it('fails the boot on a misnamed event, an event on a non-method, and events without @LaneConsumer, naming the class', async () => {
    // NOTE: an app whose init failed cannot close (close awaits the failed init), so its testing
    // module runs the shutdown hooks instead, and no connection is left behind.
    const boot = async (providers: Type<unknown>[]) => {
      const logger = new CapturingLogger();
      const mod = await Test.createTestingModule({
        imports: [EchoMqModule.forRoot({ connection: fixture.server.url, logger })], providers,
      }).compile();
      const app = mod.createNestApplication({ logger });
      try {
        await app.init();
      } finally {
        await mod.close();
      }
    };
    await expect(boot([MisnamedEvent])).rejects.toThrow(/MisnamedEvent\.finished is marked @OnLaneEvent\("finished"\)/);
    await expect(boot([EventOnProperty])).rejects.toThrow(/EventOnProperty\.notAMethod is marked @OnLaneEvent\(\) but is not a method/);
    await expect(boot([EventsWithoutConsumer])).rejects.toThrow(/EventsWithoutConsumer has @OnLaneEvent\(\) methods but is not marked @LaneConsumer/);
  });

  it('runs class and method interceptors and opted-in global ones around each job: timing, a transformed result (reported and kept), a refusal that fails then retries', async () => {
    const { app } = await boot(
      [InterceptedWorker, TimingInterceptor, DoubleResultInterceptor, FirstAttemptRefuser, { provide: APP_INTERCEPTOR, useClass: GlobalJobTagger }],
      { backoff: { delayMs: 0 } },
    );
    const lanes = app.get(LanesService);
    const id = await lanes.submit('ic-class', 'g', 20);
    await until(() => log.some((l) => l.startsWith('completed')), 10_000, 'the completion');
    expect(log).toEqual([
      'global saw ic-class', 'failed 1 refused by interceptor retry',
      'global saw ic-class', 'handled 2', 'completed {"doubled":42}',
    ]);
    // The result kept with the job is the interceptors' too, as the completed event reported it.
    expect((await lanes.job('ic-class', id))?.result).toEqual({ doubled: 42 });
    expect(timings.map((t) => ({ type: t.type, jobId: t.jobId }))).toEqual([
      { type: 'echomq', jobId: id }, { type: 'echomq', jobId: id },
    ]);
    expect(timings.every((t) => t.ms >= 0)).toBe(true);
  });
});
