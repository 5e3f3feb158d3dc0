import { durabilityOnCluster, fsyncUnsupported, notReplicated } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';
import { withinCallTimeout } from './call-deadline';
import { connectsToCluster } from './redis-connection';
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
  private readonly prefix: string;
  private readonly callTimeoutMs: number | null;
  /** Connections closed so far: a WAIT answered on a later connection than its write confirms nothing. */
  private closes = 0;
  /** The WAIT on the wire, and the one that goes out after it, which every confirm meanwhile joins. */
  private sending?: Promise<number>;
  private queued?: Promise<number>;

  constructor(private readonly client: RedisClient, options: ResolvedEchoMqOptions) {
    this.settings = options.durability;
    this.prefix = options.prefix;
    this.callTimeoutMs = options.callTimeoutMs;
    // NOTE: the client too, not only the option: a LanesService built by hand on a Cluster client
    // has the default connection option, and its WAITs went to a random master.
    if (this.settings && (connectsToCluster(options.connection) || (client as { isCluster?: boolean }).isCluster === true)) {
      // NOTE: WAIT counts the writes of its own connection, and a Cluster client sends a keyless
      // command to any node: it could wait on a node that never saw the write.
      throw new EchoMqError(durabilityOnCluster(), { code: 'MISCONFIGURED', argument: 'durability' });
    }
    if (this.settings) client.on('close', () => (this.closes += 1));
  }

  /**
   * Resolves with `value` once the write before it is replicated (at once when durability is off,
   * or when the call wrote nothing: `wrote` false, a stale ack or a retryDead of a job not dead).
   */
  async confirm<T>(op: string, queue: string, value: T, wrote = true): Promise<T> {
    const d = this.settings;
    if (!d || !wrote) return value;
    // NOTE: the write's reply came on the connection open now. ioredis re-sends a command that was
    // unanswered when a connection dropped: a WAIT re-sent on a new connection (to a new primary,
    // after a failover) counts that connection's writes, none, and would confirm a lost write.
    const connection = this.closes;
    const waits: Promise<unknown>[] = [this.replicas()];
    if (d.fsync) waits.push(this.fsynced(op, queue));
    // NOTE: a WAIT may go out only once the one before it answered: up to two timeouts of the server's own.
    let [replicated] = (await withinCallTimeout(Promise.all(waits), this.callTimeoutMs, op, queue, { extraMs: 2 * d.timeoutMs })) as [number];
    if (this.closes !== connection) replicated = 0;
    if (replicated < d.replicas) {
      throw new EchoMqError(notReplicated(op, queue, replicated, d.replicas, d.timeoutMs), { code: 'NOT_REPLICATED', queue });
    }
    return value;
  }

  /**
   * The replicas holding every write this connection made before the call. NOTE: WAIT blocks its
   * connection, so one WAIT per write would queue them up: short of replicas, N writes would stall
   * every command for N × timeoutMs. One WAIT covers all the writes before it, so a call joins the
   * WAIT that goes out next: at most two are ever outstanding.
   */
  private replicas(): Promise<number> {
    if (this.queued) return this.queued;
    if (!this.sending) return this.send();
    const settled = this.sending.then(() => undefined, () => undefined);
    this.queued = settled.then(() => {
      this.queued = undefined;
      return this.send();
    });
    return this.queued;
  }

  private send(): Promise<number> {
    const d = this.settings!;
    const wait = this.client.wait(d.replicas, d.timeoutMs);
    this.sending = wait;
    const clear = () => {
      if (this.sending === wait) this.sending = undefined;
    };
    wait.then(clear, clear);
    return wait;
  }

  private async fsynced(op: string, queue: string): Promise<void> {
    const d = this.settings!;
    this.waitAof ??= this.client.call('COMMAND', 'INFO', 'WAITAOF').then((r) => Array.isArray(r) && r[0] != null);
    if (!(await this.waitAof)) throw new EchoMqError(fsyncUnsupported(), { code: 'MISCONFIGURED', argument: 'durability.fsync', queue });
    const reply = await this.client.call('WAITAOF', '1', '0', String(d.timeoutMs)).catch((err: unknown) => {
      // NOTE: e.g. the server refuses WAITAOF while appendonly is off.
      throw fromServerError(op, queue, this.prefix, err);
    });
    const [local] = reply as [number, number];
    if (local < 1) throw new EchoMqError(notReplicated(op, queue, 0, 1, d.timeoutMs, 'fsynced to the append-only file'), { code: 'NOT_REPLICATED', queue });
  }
}
