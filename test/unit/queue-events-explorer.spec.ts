import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ECHOMQ_MODULE_OPTIONS, ECHOMQ_REDIS_CLIENT } from '../../lib/echomq.constants';
import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { OnQueueEvent, QueueEventsListener } from '../../lib/decorators';
import type { QueueEventName } from '../../lib/decorators';
import { EchoMqError } from '../../lib/errors';
import { EchoMqMetadataAccessor } from '../../lib/explorer/echomq-metadata.accessor';
import { QueueEventsExplorer } from '../../lib/explorer/queue-events.explorer';
import { CapturingLogger } from '../support/nest';

@QueueEventsListener('orders')
@Injectable()
class Audit {
  @OnQueueEvent('completed') done(): void {}
  @OnQueueEvent('dead') dead(): void {}
}

@QueueEventsListener('invoices')
@Injectable()
class Other {
  @OnQueueEvent('submitted') submitted(): void {}
}

/** Runs the explorer's discovery over `providers` (no server: the wiring only). */
async function explore(providers: unknown[]): Promise<QueueEventsExplorer> {
  const mod = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      { provide: ECHOMQ_MODULE_OPTIONS, useValue: resolveEchoMqOptions({ logger: new CapturingLogger() }) },
      { provide: ECHOMQ_REDIS_CLIENT, useValue: {} },
      EchoMqMetadataAccessor,
      QueueEventsExplorer,
      ...(providers as never[]),
    ],
  }).compile();
  const explorer = mod.get(QueueEventsExplorer);
  explorer.onModuleInit();
  return explorer;
}

describe('QueueEventsExplorer (discovery)', () => {
  it('finds every @QueueEventsListener class and its queue', async () => {
    expect((await explore([Audit, Other])).queues().sort()).toEqual(['invoices', 'orders']);
    expect((await explore([])).queues()).toEqual([]);
  });

  it('fails the boot, naming the class, on a misnamed event, a non-method, a missing @QueueEventsListener or a bad queue', async () => {
    @QueueEventsListener('orders')
    @Injectable()
    class Misnamed {
      @OnQueueEvent('finished' as QueueEventName) finished(): void {}
    }
    @Injectable()
    class Unmarked {
      @OnQueueEvent('completed') done(): void {}
    }
    @QueueEventsListener('orders')
    @Injectable()
    class Property {
      @OnQueueEvent('completed') done = 5;
    }
    @QueueEventsListener('{bad}')
    @Injectable()
    class BadQueue {}
    const cases: [unknown, RegExp][] = [
      [Misnamed, /Misnamed\.finished names the event "finished"/],
      [Unmarked, /Unmarked has @OnQueueEvent methods but no @QueueEventsListener/],
      [Property, /Property\.done is not on a method/],
      [BadQueue, /BadQueue names the queue "\{bad\}"/],
    ];
    for (const [cls, message] of cases) {
      const err = await explore([cls]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EchoMqError);
      expect((err as Error).message).toMatch(message);
    }
  });
});
