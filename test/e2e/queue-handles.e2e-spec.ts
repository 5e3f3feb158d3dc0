import { Injectable, Module, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  EchoMqError, EchoMqModule, getQueueToken, InjectQueue, LaneConsumer, LaneJob, LaneQueue, LanesService, LaneWorker,
  RegisterQueueOptions,
} from '../../lib';
import { CapturingLogger, nestFixture, until } from '../support/nest';
import { freePort, TestRedisServer } from '../support/redis-server';

/**
 * Queue handles: `EchoMqModule.registerQueue(...)` / `registerQueueAsync(...)`, `@InjectQueue(name)`,
 * the queue's defaults on the handle's calls and on its consumers, and `LaneWorker<T>`.
 */
interface Order { sku: string; qty: number }

const fixture = nestFixture();

async function boot(imports: unknown[], providers: Type<unknown>[] = [], build?: (t: ReturnType<typeof Test.createTestingModule>) => void) {
  const logger = new CapturingLogger();
  const builder = Test.createTestingModule({
    imports: [EchoMqModule.forRoot({ connection: fixture.server.url, logger }), ...(imports as Type<unknown>[])],
    providers,
  });
  build?.(builder);
  const mod = await builder.compile();
  const app = mod.createNestApplication({ logger });
  fixture.apps.push(app);
  await app.init();
  return { app, lanes: app.get(LanesService) };
}

@Injectable()
class Shop {
  constructor(@InjectQueue('orders') readonly orders: LaneQueue<Order>, @InjectQueue('mail') readonly mail: LaneQueue<string>) {}
}

const ORDERS: RegisterQueueOptions = { name: 'orders', defaults: { maxAttempts: 5, delayMs: 600_000, leaseMs: 600_000, backoff: { delayMs: 600_000 } } };

describe('queue handles', () => {
  it('registers several queues at once, each handle bound to its own queue and applying its defaults to submits', async () => {
    const { app, lanes } = await boot([EchoMqModule.registerQueue(ORDERS, { name: 'mail' })], [Shop]);
    const { orders, mail } = app.get(Shop);
    expect(orders.name).toBe('orders');
    expect(orders.defaults).toEqual({ ...ORDERS.defaults, backoff: { delayMs: 600_000, factor: 2, maxDelayMs: 3_600_000 } });
    expect(Object.isFrozen(orders.defaults)).toBe(true);

    const delayed = await orders.submit('acme', { sku: 'a1', qty: 2 });
    const delayedInfo = await lanes.job('orders', delayed);
    expect(delayedInfo).toMatchObject({ state: 'scheduled', maxAttempts: 5, payload: { sku: 'a1', qty: 2 } });
    expect(delayedInfo!.dueAt! - delayedInfo!.submittedAt).toBeGreaterThanOrEqual(600_000);
    // What a call sets wins over the queue's defaults.
    const now = await orders.submit('acme', { sku: 'a2', qty: 1 }, { delayMs: 0, maxAttempts: 2 });
    expect(await lanes.job('orders', now)).toMatchObject({ state: 'pending', maxAttempts: 2 });
    const [many] = await orders.submitMany([{ group: 'zeta', payload: { sku: 'z', qty: 1 } }]);
    expect(await orders.job(many)).toMatchObject({ state: 'scheduled', maxAttempts: 5 });

    // The other handle has no defaults: the module's apply, and it writes to its own queue only.
    const letter = await mail.submit('acme', 'hello');
    expect(await lanes.job('mail', letter)).toMatchObject({ state: 'pending', maxAttempts: 3, payload: 'hello' });
    expect(await mail.job(now)).toBeNull();
    expect((await orders.lane('acme')).pending).toBe(1);
    expect((await mail.stats()).pending).toBe(1);
  });

  it('claims with the queue lease and fails with its attempts and backoff, unless the call says otherwise', async () => {
    const { app } = await boot([EchoMqModule.registerQueue(ORDERS, { name: 'mail' })], [Shop]);
    const { orders } = app.get(Shop);
    await orders.submit('acme', { sku: 'a', qty: 1 }, { delayMs: 0 });
    await orders.submit('acme', { sku: 'b', qty: 1 }, { delayMs: 0 });
    const long = (await orders.claim())!;
    expect(long.payload.sku).toBe('a');
    expect(long.leaseUntil - Date.now()).toBeGreaterThan(500_000);
    const short = (await orders.claim({ leaseMs: 5_000 }))!;
    expect(short.leaseUntil - Date.now()).toBeLessThan(100_000);

    expect(await orders.fail(long.id, long.attempt, new Error('out of stock'))).toBe('retry');
    const retried = (await orders.job(long.id))!;
    expect(retried.state).toBe('scheduled');
    expect(retried.dueAt! - Date.now()).toBeGreaterThan(500_000);
    expect(await orders.fail(short.id, short.attempt, 'no', { backoff: { delayMs: 0 } })).toBe('retry');
    expect((await orders.job(short.id))!.state).toBe('pending');
  });

  it('gives the queue defaults to its consumers, below their own options', async () => {
    const failures: LaneJob<Order>[] = [];

    @LaneConsumer('orders', { concurrency: 2 })
    @Injectable()
    class OrderWorker extends LaneWorker<Order> {
      override async handle(job: LaneJob<Order>): Promise<unknown> {
        if (job.payload.qty < 0) {
          failures.push(job);
          throw new Error('negative quantity');
        }
        return { packed: job.payload.qty };
      }
    }

    @LaneConsumer('strict', { maxAttempts: 1 })
    @Injectable()
    class StrictWorker extends LaneWorker {
      override async handle(): Promise<never> {
        throw new Error('always');
      }
    }

    @LaneConsumer('twice')
    @Injectable()
    class TwiceWorker extends LaneWorker {
      override async handle(): Promise<never> {
        throw new Error('always');
      }
    }

    @LaneConsumer('patient', { backoff: { delayMs: 300_000, factor: 1 } })
    @Injectable()
    class PatientWorker extends LaneWorker {
      override async handle(): Promise<never> {
        throw new Error('later');
      }
    }

    const { lanes } = await boot([
      EchoMqModule.registerQueue({ name: 'orders', defaults: { maxAttempts: 2, backoff: { delayMs: 600_000 }, keepCompletedMs: 60_000 } },
        { name: 'strict', defaults: { maxAttempts: 5 } }, { name: 'twice', defaults: { maxAttempts: 2, backoff: { delayMs: 0 } } },
        { name: 'patient', defaults: { backoff: { delayMs: 0 } } }),
    ], [OrderWorker, StrictWorker, TwiceWorker, PatientWorker]);

    const bad = await lanes.submit('orders', 'acme', { sku: 'x', qty: -1 });
    const good = await lanes.submit('orders', 'acme', { sku: 'y', qty: 3 });
    await until(async () => (await lanes.job('orders', good))?.state === 'completed', 20_000, 'the good order kept as completed');
    expect((await lanes.job('orders', good))!.result).toEqual({ packed: 3 });
    await until(async () => (await lanes.job('orders', bad))?.state === 'scheduled', 20_000, 'the bad order scheduled for a retry');
    const retry = (await lanes.job('orders', bad))!;
    // The queue's backoff (10 minutes), not the module's (1 s).
    expect(retry.dueAt! - Date.now()).toBeGreaterThan(500_000);
    expect(failures).toHaveLength(1);

    // The queue's maxAttempts (2), not the module's (3), for a job submitted without its own.
    const twice = await lanes.submit('twice', 'acme', 1);
    await until(async () => (await lanes.job('twice', twice))?.state === 'dead', 20_000, 'the job dead after two attempts');
    // job() says what the consumers did: the queue's attempts, though LanesService submitted it.
    expect((await lanes.job('twice', twice))!).toMatchObject({ attempt: 2, maxAttempts: 2 });

    // The consumer's own maxAttempts (1) wins over the queue's (5).
    const strict = await lanes.submit('strict', 'acme', 1);
    await until(async () => (await lanes.job('strict', strict))?.state === 'dead', 20_000, 'the strict job dead after one attempt');
    expect((await lanes.job('strict', strict))!.attempt).toBe(1);

    // The consumer's own backoff (5 minutes) wins over the queue's (none).
    const patient = await lanes.submit('patient', 'acme', 1);
    await until(async () => (await lanes.job('patient', patient))?.state === 'scheduled', 20_000, 'the patient job scheduled for a retry');
    expect((await lanes.job('patient', patient))!.dueAt! - Date.now()).toBeGreaterThan(250_000);
  });

  it('takes a queue\'s defaults from a factory with registerQueueAsync, and its handle injects where imported', async () => {
    @Module({ providers: [{ provide: 'ORDER_ATTEMPTS', useValue: 7 }], exports: ['ORDER_ATTEMPTS'] })
    class ConfigModule {}

    @Module({
      imports: [EchoMqModule.registerQueueAsync({
        name: 'orders', imports: [ConfigModule], inject: ['ORDER_ATTEMPTS'],
        useFactory: async (attempts: number) => ({ defaults: { maxAttempts: attempts } }),
      })],
      providers: [{ provide: 'SHOP', useFactory: (q: LaneQueue<Order>) => q, inject: [getQueueToken('orders')] }],
      exports: ['SHOP'],
    })
    class ShopModule {}

    const { app, lanes } = await boot([ShopModule]);
    const orders = app.get<LaneQueue<Order>>('SHOP');
    const id = await orders.submit('acme', { sku: 'a', qty: 1 });
    expect(await lanes.job('orders', id)).toMatchObject({ state: 'pending', maxAttempts: 7 });
  });

  it('lets a test override a handle by its token', async () => {
    const fake = { submit: async () => 'JOB00000000042' };
    const { app } = await boot([EchoMqModule.registerQueue(ORDERS, { name: 'mail' })], [Shop],
      (t) => t.overrideProvider(getQueueToken('orders')).useValue(fake));
    expect(app.get(Shop).orders).toBe(fake);
    expect(await app.get(Shop).orders.submit('acme', { sku: 'a', qty: 1 })).toBe('JOB00000000042');
  });

  it('rejects bad input through a handle by the argument\'s name, writing nothing', async () => {
    const { app } = await boot([EchoMqModule.registerQueue(ORDERS, { name: 'mail' })], [Shop]);
    const { orders } = app.get(Shop);
    const c = fixture.server.client();
    const dirty = async () => Number(/rdb_changes_since_last_save:(\d+)/.exec(await c.info('persistence'))![1]);
    const before = await dirty();
    await expect(orders.submit('acme', { sku: 'a', qty: 1 }, 'fast' as never)).rejects.toMatchObject({ argument: 'opts' });
    await expect(orders.submit('acme', { sku: 'a', qty: 1 }, { delayMs: -1 })).rejects.toMatchObject({ argument: 'opts.delayMs' });
    await expect(orders.submitMany([{ group: '{x}', payload: { sku: 'a', qty: 1 } }])).rejects.toMatchObject({ argument: 'items[0].group' });
    await expect(orders.claim({ leaseMs: 0 })).rejects.toMatchObject({ argument: 'opts.leaseMs' });
    await expect(orders.lane('')).rejects.toMatchObject({ argument: 'group' });
    expect(await dirty()).toBe(before);
    await c.quit();
  });

  it('sets the queue\'s fairness at boot, before its consumers claim, and gives every job the handle submits its default cost', async () => {
    const { app, lanes } = await boot([EchoMqModule.registerQueue({ name: 'orders', defaults: { cost: 40 }, fairness: { by: 'cost' } }, { name: 'mail' })], [Shop]);
    expect((await lanes.stats('orders')).fairness).toEqual({ by: 'cost' });
    expect((await lanes.stats('mail')).fairness).toEqual({ by: 'jobs' });
    const { orders } = app.get(Shop);
    for (let i = 0; i < 3; i++) await orders.submit('big', { sku: 'b', qty: i });
    for (let i = 0; i < 120; i++) await orders.submit('small', { sku: 's', qty: i }, { cost: 1 });
    // Cost 40 against cost 1: the big lane is served once per 40 units of the small lane's work.
    const served = (await orders.claimMany(45)).jobs.map((j) => j.group);
    expect(served.filter((g) => g === 'big')).toHaveLength(2);
  });

  it('boots while the server does not answer, a queue\'s fairness then set once it does (and tried again after a call that timed out)', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const bootDown = async (queue: string, callTimeoutMs?: number, at = url, compat?: 'echomq') => {
      const logger = new CapturingLogger();
      const mod = await Test.createTestingModule({
        imports: [EchoMqModule.forRoot({ connection: at, logger, callTimeoutMs, compat }), EchoMqModule.registerQueue({ name: queue, fairness: { by: 'cost' } })],
      }).compile();
      const app = mod.createNestApplication({ logger });
      fixture.apps.push(app);
      const started = Date.now();
      await app.init();
      return { took: Date.now() - started, logger, lanes: app.get(LanesService) };
    };
    // A fairness the module refuses (compat mode takes only 'jobs') still fails the boot, the server up or not.
    for (const at of [url, fixture.server.url]) {
      await expect(bootDown('refused', undefined, at, 'echomq')).rejects.toMatchObject({ code: 'MISCONFIGURED', argument: 'opts.by' });
    }
    const waiting = await bootDown('costly');
    const timedOut = await bootDown('costly-too', 500);
    // NOTE: each held by the one 3 s deadline of a boot while the server is down, no more.
    expect(waiting.took).toBeLessThan(6_000);
    expect(timedOut.took).toBeLessThan(6_000);
    // NOTE: the server comes up once the second app's call has had its 500 ms.
    await new Promise((r) => setTimeout(r, 1_500));
    const server = await TestRedisServer.start([], port);
    try {
      const by = async (lanes: LanesService, queue: string) => (await lanes.stats(queue).catch(() => null))?.fairness.by;
      await until(async () => (await by(waiting.lanes, 'costly')) === 'cost', 10_000, 'the fairness sent while the server was down');
      await until(async () => (await by(timedOut.lanes, 'costly-too')) === 'cost', 15_000, 'the fairness tried again');
      expect(timedOut.logger.text('warn')).toMatch(/Could not set the fairness of queue "costly-too" at boot/);
    } finally {
      await Promise.all(fixture.apps.splice(0).map((a) => a.close()));
      await server.stop();
    }
  }, 40_000);

  it('fails the boot on bad defaults, naming the option, and on one queue registered with two sets of defaults', async () => {
    const bad = boot([EchoMqModule.registerQueue({ name: 'orders', defaults: { maxAttempts: 0 } })]);
    await expect(bad).rejects.toThrow(EchoMqError);
    await expect(bad).rejects.toMatchObject({ argument: 'defaults.maxAttempts', queue: 'orders' });
    await expect(boot([EchoMqModule.registerQueue({ name: 'orders', defaults: { cost: 0 } })]))
      .rejects.toMatchObject({ argument: 'defaults.cost' });
    await expect(boot([EchoMqModule.registerQueue({ name: 'orders', defaults: { priority: 3 } as never })]))
      .rejects.toMatchObject({ argument: 'defaults.priority' });
    await expect(boot([EchoMqModule.registerQueue({ name: 'orders', fairness: { by: 'fastest' } as never })]))
      .rejects.toMatchObject({ argument: 'fairness.by', queue: 'orders' });

    @Module({ imports: [EchoMqModule.registerQueue({ name: 'orders', defaults: { leaseMs: 1_000 } })] })
    class A {}
    @Module({ imports: [EchoMqModule.registerQueue({ name: 'orders', defaults: { leaseMs: 2_000 } })] })
    class B {}
    await expect(boot([A, B])).rejects.toMatchObject({ code: 'MISCONFIGURED', message: expect.stringMatching(/registered twice with different defaults/) });
  });
});
