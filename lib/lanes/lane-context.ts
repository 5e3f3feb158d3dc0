import type { ResolvedEchoMqOptions } from '../interfaces';
import type { EchoMqQueueRegistry } from '../queues/queue-defaults';
import { withinCallTimeout } from '../redis/call-deadline';
import { Durability } from '../redis/durability';
import { LaneKeys } from '../redis/lane-keys';
import { fromServerError } from '../redis/server-errors';
import { LaneScripts, RedisClient } from '../scripts/lane-scripts';
import { checkName } from '../validation/validate';
import { FenceMend } from '../shards/fence-mend';
import { ShardRouter } from '../shards/shard-router';

/**
 * @internal What every role behind `LanesService` shares: the command connection, the typed
 * scripts on it, the resolved options, and the keys of each queue (built once per queue name).
 */
export class LaneContext {
  readonly scripts: LaneScripts;
  /** Waits for replicas after acknowledged writes (`durability` option). */
  readonly durability: Durability;
  /** Where each part of a sharded queue lives: shard counts, lanes, jobs, and how claims visit the shards. */
  readonly shards: ShardRouter;
  private readonly keys = new Map<string, LaneKeys>();

  constructor(readonly client: RedisClient, readonly options: ResolvedEchoMqOptions, private readonly registry?: EchoMqQueueRegistry) {
    this.scripts = new LaneScripts(client, undefined, options.compat === 'echomq', options.callTimeoutMs);
    this.durability = new Durability(client, options);
    const read = <T>(op: string, k: LaneKeys, pending: Promise<T>): Promise<T> => this.read(op, k, pending);
    this.shards = new ShardRouter(client, options, read, new FenceMend(client, this.scripts, read));
  }

  /**
   * The attempts a job of `queue` gets when neither its submit nor the call names them: the queue's
   * registered default (registerQueue), as its consumers apply it, else the module's.
   */
  maxAttemptsOf(queue: string): number {
    return this.registry?.defaultsOf(queue).maxAttempts ?? this.options.maxAttempts;
  }

  /**
   * A plain command of `op` on the command connection, within callTimeoutMs; a server error
   * becomes an EchoMqError as a script's does.
   */
  read<T>(op: string, k: LaneKeys, pending: Promise<T>): Promise<T> {
    return withinCallTimeout(pending, this.options.callTimeoutMs, op, k.queue)
      .catch((err: unknown) => { throw fromServerError(op, k.queue, k.prefix, err); });
  }

  /** Keys of a queue, after checking its name. */
  keysOf(queue: unknown): LaneKeys {
    const cached = this.keys.get(queue as string);
    if (cached) return cached;
    const k = new LaneKeys(this.options.prefix, checkName('queue', queue));
    // NOTE: bounded, so a caller cycling through many queue names cannot grow it without end.
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(k.queue, k);
    return k;
  }
}
