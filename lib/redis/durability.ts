import { durabilityOnCluster, fsyncUnsupported, notReplicated } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';
import { isClusterConnection } from './redis-connection';
import { fromServerError } from './server-errors';

/**
 * @internal Replicated writes (`durability` module option): after every acknowledged write, `WAIT`
 * on the same connection until `replicas` replicas hold everything it wrote, and with `fsync` also
 * `WAITAOF` until the server's own append-only file is fsynced. Short of that within `timeoutMs`
 * the call rejects with NOT_REPLICATED; the write itself may stand (retry a submit with its jobId).
 */
export class Durability {
  private readonly settings: ResolvedEchoMqOptions['durability'];
  /** Whether the server has WAITAOF, probed once (COMMAND INFO), on the first fsync'd write. */
  private waitAof?: Promise<boolean>;

  constructor(private readonly client: RedisClient, options: ResolvedEchoMqOptions) {
    this.settings = options.durability;
    if (this.settings && isClusterConnection(options.connection)) {
      // NOTE: WAIT counts the writes of its own connection, and a Cluster client sends a keyless
      // command to any node: it could wait on a node that never saw the write.
      throw new EchoMqError(durabilityOnCluster(), { code: 'MISCONFIGURED', argument: 'durability' });
    }
  }

  /** Resolves with `value` once the write before it is replicated (at once when durability is off). */
  async confirm<T>(op: string, queue: string, value: T): Promise<T> {
    const d = this.settings;
    if (!d) return value;
    const waits: Promise<unknown>[] = [this.client.wait(d.replicas, d.timeoutMs)];
    if (d.fsync) waits.push(this.fsynced(op, queue));
    const [replicated] = (await Promise.all(waits)) as [number];
    if (replicated < d.replicas) {
      throw new EchoMqError(notReplicated(op, queue, replicated, d.replicas, d.timeoutMs), { code: 'NOT_REPLICATED', queue });
    }
    return value;
  }

  private async fsynced(op: string, queue: string): Promise<void> {
    const d = this.settings!;
    this.waitAof ??= this.client.call('COMMAND', 'INFO', 'WAITAOF').then((r) => Array.isArray(r) && r[0] != null);
    if (!(await this.waitAof)) throw new EchoMqError(fsyncUnsupported(), { code: 'MISCONFIGURED', argument: 'durability.fsync', queue });
    const reply = await this.client.call('WAITAOF', '1', '0', String(d.timeoutMs)).catch((err: unknown) => {
      // NOTE: e.g. the server refuses WAITAOF while appendonly is off.
      throw fromServerError(op, queue, '', err);
    });
    const [local] = reply as [number, number];
    if (local < 1) throw new EchoMqError(notReplicated(op, queue, 0, 1, d.timeoutMs, 'fsynced to the append-only file'), { code: 'NOT_REPLICATED', queue });
  }
}
