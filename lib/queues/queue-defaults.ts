import type { FactoryProvider, ModuleMetadata } from '@nestjs/common';
import { MAX_KEEP_COMPLETED_MS } from '../echomq.constants';
import { resolveBackoff } from '../echomq.options';
import { invalidArgument, queueRegisteredTwice } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { EchoMqBackoff } from '../interfaces';
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
}

/** One queue of `EchoMqModule.registerQueue(...)`. */
export interface RegisterQueueOptions {
  /** The queue's name; `@InjectQueue(name)` injects its handle. */
  name: string;
  /** What the queue's handle and consumers use for what a call leaves out. */
  defaults?: LaneQueueDefaults;
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
  if (d.backoff !== undefined) put('backoff', Object.freeze(resolveBackoff(d.backoff, 'defaults.backoff')));
  const known = new Set(['maxAttempts', 'delayMs', 'leaseMs', 'keepCompletedMs', 'backoff']);
  for (const key of Object.keys(d)) {
    if (!known.has(key)) {
      throw new EchoMqError(invalidArgument(`defaults.${key}`, `is not a queue default (known: ${[...known].join(', ')})`, (d as Record<string, unknown>)[key]),
        { argument: `defaults.${key}`, queue });
    }
  }
  return Object.freeze(out);
}

/**
 * @internal The defaults of every registered queue of the application, filled in as each queue's
 * handle is made (before any lifecycle hook), read when the claim loops start.
 */
export class EchoMqQueueRegistry {
  private readonly queues = new Map<string, Readonly<LaneQueueDefaults>>();

  /** Records a queue's defaults; the same queue registered twice must name the same defaults. */
  define(name: unknown, rawDefaults: unknown): { name: string; defaults: Readonly<LaneQueueDefaults> } {
    const queue = checkName('name', name);
    const defaults = resolveQueueDefaults(queue, rawDefaults);
    const known = this.queues.get(queue);
    if (known && JSON.stringify(known) !== JSON.stringify(defaults)) {
      throw new EchoMqError(queueRegisteredTwice(queue, JSON.stringify(known), JSON.stringify(defaults)), { code: 'MISCONFIGURED', queue });
    }
    this.queues.set(queue, defaults);
    return { name: queue, defaults };
  }

  /** The registered defaults of a queue ({} when it is not registered). */
  defaultsOf(queue: string): Readonly<LaneQueueDefaults> {
    return this.queues.get(queue) ?? {};
  }
}
