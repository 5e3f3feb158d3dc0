import type { LoggerService } from '@nestjs/common';
import type { LaneEventName } from '../decorators/on-lane-event.decorator';
import { laneEventFailed } from '../echomq.messages';

/** @internal Every event name `@OnLaneEvent` accepts. */
export const LANE_EVENT_NAMES: readonly LaneEventName[] = ['active', 'completed', 'failed', 'lost'];

/** @internal One bound `@OnLaneEvent` method. */
export interface LaneEventListener {
  /** `ClassName.method`, for logs. */
  name: string;
  fn: (...args: unknown[]) => unknown;
}

/** @internal A consumer's listeners, by event. */
export type LaneEventListeners = Partial<Record<LaneEventName, LaneEventListener[]>>;

/**
 * @internal Calls the listeners of one event and returns at once: a listener is never awaited (a
 * slow one holds no slot), and what it throws or rejects with is logged, never passed to the job.
 */
export function emitLaneEvent(
  listeners: LaneEventListeners | undefined, event: LaneEventName, jobId: string, args: unknown[], logger: LoggerService,
): void {
  const list = listeners?.[event];
  if (!list) return;
  for (const listener of list) {
    const report = (err: unknown) =>
      logger.error(laneEventFailed(listener.name, event, jobId, err instanceof Error ? err.message : String(err)), (err as Error)?.stack);
    try {
      const out = listener.fn(...args);
      if (out && typeof (out as PromiseLike<unknown>).then === 'function') (out as PromiseLike<unknown>).then(undefined, report);
    } catch (err) {
      report(err);
    }
  }
}
