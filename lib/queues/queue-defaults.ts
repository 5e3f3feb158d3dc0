import type { FactoryProvider, ModuleMetadata } from '@nestjs/common';
import { MAX_COST, MAX_KEEP_COMPLETED_MS } from '../echomq.constants';
import { resolveBackoff } from '../echomq.options';
import { invalidArgument, queueRegisteredTwice } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { EchoMqBackoff, FairnessBy, FairnessOptions } from '../interfaces';
import { checkName, checkOptInt } from '../validation/validate';

/**
 * Defaults of one queue: its handle's submits and claims, and the consumers of the queue, use them
 * for what a call or a `@LaneConsumer` option leaves out (which in turn fall back to the module's).
 */
export interface LaneQueueDefaults {
  /** Attempts before a job is dead-lettered: set on every job the handle submits, and the consumers' fallback. */
  maxAttempts?: number;
  /** Retry delay of the queue's failures (the handle's `fail` and the consumers'). @default the module's backoff */
  backoff?: EchoMqBackoff;
  /** Delay of every job the handle submits, in ms. @default 0 */
  delayMs?: number;
  /** Lease of the handle's claims and of the queue's consumers, in ms. @default the module's leaseMs */
  leaseMs?: number;
  /** How long completed jobs stay readable (the handle's completes and the consumers'), in ms. @default the module's */
  keepCompletedMs?: number;
  /** Cost of every job the handle submits (integer 1..1,000,000; see `LanesService.fairness`). @default 1 */
  cost?: number;
}

/** One queue of `EchoMqModule.registerQueue(...)`. */
export interface RegisterQueueOptions {
  /** The queue's name; `@InjectQueue(name)` injects its handle. */
  name: string;
  /** What the queue's handle and consumers use for what a call leaves out. */
  defaults?: LaneQueueDefaults;
  /**
   * What a lane's share of the queue counts, set with `LanesService.fairness` when the application
   * boots, before its consumers claim. @default left as the queue has it
   */
  fairness?: FairnessOptions;
}

/** One queue of `EchoMqModule.registerQueueAsync(...)`: its name now, its defaults from a factory. */
export interface RegisterQueueAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** The queue's name; `@InjectQueue(name)` injects its handle. */
  name: string;
  /** Providers to inject into `useFactory`. */
  inject?: FactoryProvider['inject'];
  /** Returns the queue's options (the name aside), or a promise of them. */
  useFactory: (...args: any[]) => Omit<RegisterQueueOptions, 'name'> | Promise<Omit<RegisterQueueOptions, 'name'>>;
}

/** @internal Checks a queue's defaults (arguments named `defaults.…`) and freezes a copy. */
export function resolveQueueDefaults(queue: string, raw: unknown): Readonly<LaneQueueDefaults> {
  if (raw === undefined || raw === null) return Object.freeze({});
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new EchoMqError(invalidArgument('defaults', 'must be an options object', raw), { argument: 'defaults', queue });
  }
  const d = raw as LaneQueueDefaults;
  const out: LaneQueueDefaults = {};
  const put = <K extends keyof LaneQueueDefaults>(key: K, value: LaneQueueDefaults[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  put('maxAttempts', checkOptInt('defaults.maxAttempts', d.maxAttempts, 1, 1_000_000, queue));
  put('delayMs', checkOptInt('defaults.delayMs', d.delayMs, 0, 10 * 365 * 24 * 3600 * 1000, queue));
  put('leaseMs', checkOptInt('defaults.leaseMs', d.leaseMs, 100, 2 ** 31 - 1, queue));
  put('keepCompletedMs', checkOptInt('defaults.keepCompletedMs', d.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS, queue));
  put('cost', checkOptInt('defaults.cost', d.cost, 1, MAX_COST, queue));
  if (d.backoff !== undefined) put('backoff', Object.freeze(resolveBackoff(d.backoff, 'defaults.backoff')));
  const known = new Set(['maxAttempts', 'delayMs', 'leaseMs', 'keepCompletedMs', 'backoff', 'cost']);
  for (const key of Object.keys(d)) {
    if (!known.has(key)) {
      throw new EchoMqError(invalidArgument(`defaults.${key}`, `is not a queue default (known: ${[...known].join(', ')})`, (d as Record<string, unknown>)[key]),
        { argument: `defaults.${key}`, queue });
    }
  }
  return Object.freeze(out);
}

/** @internal Checks a queue's `fairness` option (argument `fairness.by`); undefined when it is left out. */
export function resolveQueueFairness(queue: string, raw: unknown): Readonly<FairnessOptions> | undefined {
  if (raw === undefined) return undefined;
  const by = typeof raw === 'object' && raw !== null ? (raw as { by?: unknown }).by : undefined;
  if (!['jobs', 'cost', 'time'].includes(by as string)) {
    throw new EchoMqError(invalidArgument('fairness.by', "must be 'jobs', 'cost' or 'time' (fairness: { by })", raw), { argument: 'fairness.by', queue });
  }
  return Object.freeze({ by: by as FairnessBy });
}

/**
 * @internal The defaults of every registered queue of the application, filled in as each queue's
 * handle is made (before any lifecycle hook), read when the claim loops start.
 */
export class EchoMqQueueRegistry {
  private readonly queues = new Map<string, Readonly<LaneQueueDefaults>>();
  private readonly fairness = new Map<string, Readonly<FairnessOptions>>();

  /** Records a queue's defaults and fairness; the same queue registered twice must name the same of both. */
  define(name: unknown, rawDefaults: unknown, rawFairness?: unknown): { name: string; defaults: Readonly<LaneQueueDefaults> } {
    const queue = checkName('name', name);
    const defaults = resolveQueueDefaults(queue, rawDefaults);
    const fairness = resolveQueueFairness(queue, rawFairness);
    const known = this.queues.get(queue);
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    if (known && (!same(known, defaults) || !same(this.fairness.get(queue), fairness))) {
      const shown = (d: unknown, f: unknown) => JSON.stringify({ defaults: d, fairness: f ?? null });
      throw new EchoMqError(queueRegisteredTwice(queue, shown(known, this.fairness.get(queue)), shown(defaults, fairness)), { code: 'MISCONFIGURED', queue });
    }
    this.queues.set(queue, defaults);
    if (fairness) this.fairness.set(queue, fairness);
    return { name: queue, defaults };
  }

  /** The registered queues that name a fairness, with it. */
  fairnessOfQueues(): [string, Readonly<FairnessOptions>][] {
    return [...this.fairness.entries()];
  }

  /** The registered defaults of a queue ({} when it is not registered). */
  defaultsOf(queue: string): Readonly<LaneQueueDefaults> {
    return this.queues.get(queue) ?? {};
  }
}
