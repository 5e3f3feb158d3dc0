import { Inject } from '@nestjs/common';

/**
 * The injection token of a queue's handle (`LaneQueue`), for tests that override it
 * (`Test.createTestingModule(…).overrideProvider(getQueueToken('cm'))`).
 * @param name the queue's name, as given to `EchoMqModule.registerQueue`
 */
export function getQueueToken(name: string): string {
  return `ECHOMQ:QUEUE:${name}`;
}

/**
 * Injects the handle of a queue registered with `EchoMqModule.registerQueue({ name })` (or
 * `registerQueueAsync`) in the same module or an imported one: `@InjectQueue('cm') cm: LaneQueue<Guess>`.
 * @param name the queue's name
 */
export function InjectQueue(name: string): PropertyDecorator & ParameterDecorator {
  return Inject(getQueueToken(name));
}
