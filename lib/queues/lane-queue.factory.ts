import type { LanesService } from '../lanes.service';
import { LANE_QUEUE_METHODS, LaneQueue, LaneQueueMethod } from './lane-queue';
import type { LaneQueueDefaults } from './queue-defaults';

type Args<K extends LaneQueueMethod> = Parameters<LaneQueue[K]>;

/**
 * Fills the unset fields of an options argument from `defaults`. Anything that is not an options
 * object (a bad argument) passes unchanged, so the method still rejects it by its own name.
 */
function withDefaults<O>(opts: O, defaults: Record<string, unknown>): O {
  const set = Object.entries(defaults).filter(([, v]) => v !== undefined);
  if (set.length === 0) return opts;
  if (opts === undefined || opts === null) return Object.fromEntries(set) as O;
  if (typeof opts !== 'object' || Array.isArray(opts)) return opts;
  const out: Record<string, unknown> = { ...(opts as Record<string, unknown>) };
  for (const [key, value] of set) if (out[key] === undefined) out[key] = value;
  return out as O;
}

/**
 * @internal How the methods that take options use the queue's defaults; every other method of
 * {@link LANE_QUEUE_METHODS} is bound as it is.
 */
const DEFAULTED: { [K in LaneQueueMethod]?: (d: Readonly<LaneQueueDefaults>, args: Args<K>) => Args<K> } = {
  submit: (d, [group, payload, opts]) => [group, payload, withDefaults(opts, { maxAttempts: d.maxAttempts, delayMs: d.delayMs, cost: d.cost })],
  submitMany: (d, [items]) => [Array.isArray(items)
    ? items.map((item) => (typeof item === 'object' && item !== null
      ? { ...item, opts: withDefaults(item.opts, { maxAttempts: d.maxAttempts, delayMs: d.delayMs, cost: d.cost }) }
      : item))
    : items],
  claim: (d, [opts]) => [withDefaults(opts, { leaseMs: d.leaseMs })],
  claimMany: (d, [count, opts]) => [count, withDefaults(opts, { leaseMs: d.leaseMs })],
  wclaim: (d, [opts]) => [withDefaults(opts, { leaseMs: d.leaseMs })],
  wclaimMany: (d, [turns, opts]) => [turns, withDefaults(opts, { leaseMs: d.leaseMs })],
  complete: (d, [jobId, token, result, opts]) => [jobId, token, result, withDefaults(opts, { keepCompletedMs: d.keepCompletedMs })],
  completeMany: (d, [acks, opts]) => [acks, withDefaults(opts, { keepCompletedMs: d.keepCompletedMs })],
  fail: (d, [jobId, token, error, opts]) => [jobId, token, error, withDefaults(opts, { maxAttempts: d.maxAttempts, backoff: d.backoff })],
  reap: (d, [opts]) => [withDefaults(opts, { maxAttempts: d.maxAttempts })],
};

/** @internal A handle on `queue`: each method of {@link LANE_QUEUE_METHODS}, bound to it, with its defaults. */
export function createLaneQueue<T = unknown>(lanes: LanesService, queue: string, defaults: Readonly<LaneQueueDefaults>): LaneQueue<T> {
  const handle: Record<string, unknown> = { name: queue, defaults };
  for (const method of LANE_QUEUE_METHODS) {
    const fn = (lanes[method] as (...args: unknown[]) => unknown).bind(lanes);
    const fill = DEFAULTED[method] as ((d: Readonly<LaneQueueDefaults>, args: unknown[]) => unknown[]) | undefined;
    handle[method] = fill ? (...args: unknown[]) => fn(queue, ...fill(defaults, args)) : (...args: unknown[]) => fn(queue, ...args);
  }
  return Object.freeze(handle) as unknown as LaneQueue<T>;
}
