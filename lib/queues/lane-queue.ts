import type { LanesService } from '../lanes.service';
import type { LaneQueueDefaults } from './queue-defaults';

/**
 * The `LanesService` methods a queue handle binds, each with the queue as its first argument. The one
 * place that says what a handle has: a method `LanesService` gains goes here (one line), and a unit test
 * (test/unit/lane-queue-types.spec.ts) fails to compile while a queue method is in neither this list
 * nor {@link UnboundQueueMethod}.
 */
export const LANE_QUEUE_METHODS = [
  'submit', 'submitMany',
  'claim', 'claimMany', 'wclaim', 'wclaimMany',
  'complete', 'completeMany', 'fail', 'release', 'extend', 'extendMany',
  'reap', 'promote', 'retryDead',
  'weight', 'limit', 'maxDepth', 'ordered', 'rate', 'pause', 'resume', 'pauseQueue', 'resumeQueue',
  'lane', 'lanes', 'ring', 'peek', 'scanLanes', 'topLanes', 'oldestLanes', 'shares', 'job', 'position', 'waitFor', 'dead', 'stats',
  'cancel', 'drain', 'clean', 'obliterate', 'progress',
  'tenantWeight', 'tenantLimit', 'pauseTenant', 'resumeTenant', 'tenant', 'topTenants', 'queueLimit',
  'fairness', 'shards', 'shardCount',
] as const satisfies readonly QueueMethodName[];

/** @internal Queue methods of `LanesService` a handle leaves out on purpose (internal ones). */
export type UnboundQueueMethod = 'extendUntil' | 'shardsOf' | 'shardWoke';

/** The name of a method a queue handle binds. */
export type LaneQueueMethod = (typeof LANE_QUEUE_METHODS)[number];

/** @internal Every method of `S` (by default `LanesService`) whose first parameter is a queue name. */
export type QueueMethodName<S = LanesService> = {
  [K in keyof S]: S[K] extends (...args: infer A) => unknown ? (A extends [string, ...unknown[]] ? K : never) : never;
}[keyof S];

declare const lanes: LanesService;

/**
 * @internal The methods generic in the payload, instantiated at `T` (a method of `LanesService` that
 * takes a type parameter for its payload adds a line here, or its payload is `unknown` on a handle).
 */
interface PayloadTyped<T> {
  submit: typeof lanes.submit<T>;
  submitMany: typeof lanes.submitMany<T>;
  claim: typeof lanes.claim<T>;
  claimMany: typeof lanes.claimMany<T>;
  wclaim: typeof lanes.wclaim<T>;
  wclaimMany: typeof lanes.wclaimMany<T>;
  job: typeof lanes.job<T>;
  waitFor: typeof lanes.waitFor<T>;
  dead: typeof lanes.dead<T>;
}

/** A method with its first parameter (the queue) bound. */
type QueueBound<F> = F extends (queue: string, ...rest: infer R) => infer Ret ? (...rest: R) => Ret : never;

/** @internal The bound methods of a handle whose payloads are `T`. */
type LaneQueueMethods<T> = {
  readonly [K in LaneQueueMethod]: QueueBound<K extends keyof PayloadTyped<T> ? PayloadTyped<T>[K] : LanesService[K]>;
};

/**
 * A handle on one queue, from `EchoMqModule.registerQueue({ name })` and `@InjectQueue(name)`: every
 * `LanesService` method that takes a queue, with the queue bound (`submit(group, payload, opts?)`,
 * `claim(opts?)`, `lane(group)`, `stats()`, …), and `T` typing the payload on both sides. The queue's
 * `defaults` fill in what a call leaves out.
 */
export interface LaneQueue<T = unknown> extends LaneQueueMethods<T> {
  /** The queue's name. */
  readonly name: string;
  /** The defaults registered with the queue (frozen). */
  readonly defaults: Readonly<LaneQueueDefaults>;
}

/**
 * What a handle is at run time: the methods it binds. NOTE: `LaneQueue` is a value too so that
 * `@InjectQueue('cm') cm: LaneQueue<Guess>` compiles in a `nest new` project: there `isolatedModules`,
 * `emitDecoratorMetadata` and an ES-style module setting refuse a type-only name in a decorated
 * signature imported without `import type` (TS1272). Its metadata stays `Object` (no construct signature).
 */
export const LaneQueue: { readonly methods: readonly LaneQueueMethod[] } = Object.freeze({ methods: LANE_QUEUE_METHODS });
