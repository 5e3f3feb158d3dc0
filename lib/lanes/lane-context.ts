import type { ResolvedEchoMqOptions } from '../interfaces';
import { Durability } from '../redis/durability';
import { LaneKeys } from '../redis/lane-keys';
import { LaneScripts, RedisClient } from '../scripts/lane-scripts';
import { checkName } from '../validation/validate';

/**
 * @internal What every role behind `LanesService` shares: the command connection, the typed
 * scripts on it, the resolved options, and the keys of each queue (built once per queue name).
 */
export class LaneContext {
  readonly scripts: LaneScripts;
  /** Waits for replicas after acknowledged writes (`durability` option). */
  readonly durability: Durability;
  private readonly keys = new Map<string, LaneKeys>();

  constructor(readonly client: RedisClient, readonly options: ResolvedEchoMqOptions) {
    this.scripts = new LaneScripts(client, undefined, options.compat === 'echomq');
    this.durability = new Durability(client, options);
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
