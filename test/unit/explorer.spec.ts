import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ECHOMQ_MODULE_OPTIONS } from '../../lib/echomq.constants';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { LaneConsumer, Weighted } from '../../lib/decorators';
import { EchoMqError } from '../../lib/errors';
import { EchoMqMetadataAccessor } from '../../lib/explorer/echomq-metadata.accessor';
import { LaneConsumerExplorer } from '../../lib/explorer/lane-consumer.explorer';
import { CapturingLogger } from '../support/nest';

@LaneConsumer('q-one', { concurrency: 3, leaseMs: 5_000, maxAttempts: 7, keepCompletedMs: 60_000 })
@Injectable()
class One {
  seen: unknown[] = [];
  async handle(job: unknown): Promise<void> {
    this.seen.push(job);
  }
}

@LaneConsumer('q-two')
@Weighted()
@Injectable()
class Two {
  async handle(): Promise<void> {}
}

@Injectable()
class NotAConsumer {
  async handle(): Promise<void> {}
}

async function explore(providers: unknown[], imports: unknown[] = []) {
  const logger = new CapturingLogger();
  const mod = await Test.createTestingModule({
    imports: [DiscoveryModule, ...(imports as never[])],
    providers: [
      { provide: ECHOMQ_MODULE_OPTIONS, useValue: resolveEchoMqOptions({ logger }) },
      EchoMqMetadataAccessor,
      LaneConsumerExplorer,
      ...(providers as never[]),
    ],
  }).compile();
  await mod.init();
  return { consumers: mod.get(LaneConsumerExplorer).getConsumers(), logger, mod };
}

describe('LaneConsumerExplorer', () => {
  it('finds every @LaneConsumer provider with its options, and only those', async () => {
    const { consumers, mod } = await explore([One, Two, NotAConsumer]);
    expect(consumers.map((c) => ({ ...c, handler: typeof c.handler }))).toEqual([
      { name: 'One.handle', queue: 'q-one', concurrency: 3, leaseMs: 5_000, maxAttempts: 7, keepCompletedMs: 60_000, weighted: false, handler: 'function' },
      { name: 'Two.handle', queue: 'q-two', concurrency: 1, leaseMs: undefined, maxAttempts: undefined, weighted: true, handler: 'function' },
    ]);
    expect(Object.isFrozen(consumers)).toBe(true);
    await mod.close();
  });

  it('binds the handler to the provider instance', async () => {
    const { consumers, mod } = await explore([One]);
    await consumers[0].handler({ id: 'x' } as never);
    expect(mod.get(One).seen).toEqual([{ id: 'x' }]);
    await mod.close();
  });

  it('finds consumers provided with useValue and useFactory, by the instance class', async () => {
    const { consumers, mod } = await explore([
      { provide: 'by-value', useValue: new One() },
      { provide: 'by-factory', useFactory: () => new Two() },
    ]);
    expect(consumers.map((c) => c.name).sort()).toEqual(['One.handle', 'Two.handle']);
    await mod.close();
  });

  it('counts a provider reached through two modules once', async () => {
    @Module({ providers: [One], exports: [One] })
    class Shared {}
    @Module({ imports: [Shared], exports: [Shared] })
    class ReExport {}
    const { consumers, mod } = await explore([], [Shared, ReExport]);
    expect(consumers).toHaveLength(1);
    await mod.close();
  });

  it('skips request-scoped consumers with a warning', async () => {
    @LaneConsumer('q-scoped')
    @Injectable({ scope: 2 /* Scope.REQUEST */ })
    class Scoped {
      async handle(): Promise<void> {}
    }
    const { consumers, logger, mod } = await explore([Scoped]);
    expect(consumers).toEqual([]);
    expect(logger.text('warn')).toContain('Scoped is a request-scoped or transient @LaneConsumer');
    await mod.close();
  });

  it.each([
    ['a missing handle method', () => {
      @LaneConsumer('q')
      @Injectable()
      class NoHandle {}
      return NoHandle;
    }, /NoHandle is marked @LaneConsumer\(\) but has no handle\(job\) method/],
    ['@Weighted without @LaneConsumer', () => {
      @Weighted()
      @Injectable()
      class Lonely {
        async handle(): Promise<void> {}
      }
      return Lonely;
    }, /Lonely is marked @Weighted\(\) but not @LaneConsumer\(queue\)/],
    ['an empty queue name', () => {
      @LaneConsumer('')
      @Injectable()
      class Empty {
        async handle(): Promise<void> {}
      }
      return Empty;
    }, /Empty has an invalid @LaneConsumer queue name ""/],
    ['a fractional concurrency', () => {
      @LaneConsumer('q', { concurrency: 1.5 })
      @Injectable()
      class Frac {
        async handle(): Promise<void> {}
      }
      return Frac;
    }, /Frac has an invalid @LaneConsumer option "concurrency"/],
    ['a lease under 100 ms', () => {
      @LaneConsumer('q', { leaseMs: 5 })
      @Injectable()
      class Short {
        async handle(): Promise<void> {}
      }
      return Short;
    }, /Short has an invalid @LaneConsumer option "leaseMs"/],
    ['a negative keepCompletedMs', () => {
      @LaneConsumer('q', { keepCompletedMs: -1 })
      @Injectable()
      class Keeper {
        async handle(): Promise<void> {}
      }
      return Keeper;
    }, /Keeper has an invalid @LaneConsumer option "keepCompletedMs"/],
    ['an option it does not know (a typo)', () => {
      @LaneConsumer('q', { concurency: 8 } as never)
      @Injectable()
      class Typo {
        async handle(): Promise<void> {}
      }
      return Typo;
    }, /Typo has an invalid @LaneConsumer option "concurency": is not an option \(known: concurrency, leaseMs, maxAttempts, keepCompletedMs, backoff\)/],
    ['a backoff without its delay', () => {
      @LaneConsumer('q', { backoff: { factor: 2 } as never })
      @Injectable()
      class Hasty {
        async handle(): Promise<void> {}
      }
      return Hasty;
    }, /Hasty has an invalid @LaneConsumer option "backoff"/],
    ['a backoff factor under 1', () => {
      @LaneConsumer('q', { backoff: { delayMs: 10, factor: 0.5 } })
      @Injectable()
      class Shrinking {
        async handle(): Promise<void> {}
      }
      return Shrinking;
    }, /Shrinking has an invalid @LaneConsumer option "backoff"/],
  ])('fails at module init on %s, naming the class', async (_what, make, message) => {
    const err = await explore([make()]).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(EchoMqError);
    expect((err as EchoMqError).code).toBe('MISCONFIGURED');
    expect((err as Error).message).toMatch(message);
  });

  it('rejects the same consumer class twice on one queue', async () => {
    const err = await explore([
      { provide: 'first', useValue: new One() },
      { provide: 'second', useValue: new One() },
    ]).then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).toMatch(/One is registered twice as a consumer of "q-one"/);
  });
});
