import type { Cluster, Redis } from 'ioredis';
import { fsyncUnsupported, notReplicated } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { ResolvedEchoMqOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';
import { withinCallTimeout } from './call-deadline';
import { keySlot } from '../shards/key-slot';
import type { LaneKeys } from './lane-keys';
import { fromServerError } from './server-errors';

/**
 * @internal WAITs on one connection. WAIT counts the writes of its own connection and blocks it, so
 * one WAIT per write would queue them up: short of replicas, N writes would stall every command for
 * N × timeoutMs. One WAIT covers all the writes before it, so a confirm joins the WAIT that goes
 * out next: at most two are ever outstanding.
 */
class ConnectionWaits {
  /** Times the connection closed: a WAIT answered on a later connection than its write confirms nothing. */
  closes = 0;
  /** The WAIT on the wire, and the one that goes out after it, which every confirm meanwhile joins. */
  private sending?: Promise<number>;
  private queued?: Promise<number>;

  constructor(private readonly connection: Redis, private readonly replicas: number, private readonly timeoutMs: number) {
    connection.on('close', () => (this.closes += 1));
  }

  /** The replicas holding every write this connection made before the call. */
  next(): Promise<number> {
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
    const wait = this.connection.wait(this.replicas, this.timeoutMs);
    this.sending = wait;
    const clear = () => {
      if (this.sending === wait) this.sending = undefined;
    };
    wait.then(clear, clear);
    return wait;
  }
}

/**
 * @internal Replicated writes (`durability` module option): after every acknowledged write, `WAIT`
 * on the connection that made it until `replicas` replicas hold everything it wrote, and with
 * `fsync` also `WAITAOF` until the server's own append-only file is fsynced. Short of that within
 * `timeoutMs` the call rejects with NOT_REPLICATED; the write itself may stand (retry a submit with
 * its jobId). On a Cluster the WAIT goes to the master that serves the written shard's slot, on the
 * Cluster client's own connection to it (the one the write went by): one per master a call wrote to.
 */
export class Durability {
  private readonly settings: ResolvedEchoMqOptions['durability'];
  /** Whether the server has WAITAOF, probed once (COMMAND INFO), on the first fsync'd write. */
  private waitAof?: Promise<boolean>;
  private readonly prefix: string;
  private readonly callTimeoutMs: number | null;
  private readonly cluster: Cluster | null;
  /** The waits of each connection WAITs went on (the one plain connection, or a Cluster's masters). */
  private readonly waits = new WeakMap<Redis, ConnectionWaits>();

  constructor(private readonly client: RedisClient, options: ResolvedEchoMqOptions) {
    this.settings = options.durability;
    this.prefix = options.prefix;
    this.callTimeoutMs = options.callTimeoutMs;
    this.cluster = (client as Cluster).isCluster === true ? (client as Cluster) : null;
    if (this.settings && this.cluster === null) this.waitsOf(client as Redis);
  }

  /**
   * Resolves with `value` once the write before it is replicated (at once when durability is off,
   * or when the call wrote nothing: `wrote` false, a stale ack or a retryDead of a job not dead).
   * `where`: the shards the call wrote to (their slots name the masters to wait on, on a Cluster).
   */
  async confirm<T>(op: string, queue: string, value: T, wrote: boolean, where: LaneKeys | LaneKeys[]): Promise<T> {
    const d = this.settings;
    if (!d || !wrote) return value;
    // NOTE: the write's reply came on the connection open now. ioredis re-sends a command that was
    // unanswered when a connection dropped: a WAIT re-sent on a new connection (to a new primary,
    // after a failover) counts that connection's writes, none, and would confirm a lost write.
    const connections = this.connectionsOf(Array.isArray(where) ? where : [where]);
    const closes = connections.map((c) => (c ? this.waitsOf(c).closes : 0));
    const waits: Promise<unknown>[] = [Promise.all(connections.map((c) => (c ? this.waitsOf(c).next() : Promise.resolve(0))))];
    if (d.fsync) waits.push(this.fsynced(op, queue, connections));
    // NOTE: a WAIT may go out only once the one before it answered: up to two timeouts of the server's own.
    const [counts] = (await withinCallTimeout(Promise.all(waits), this.callTimeoutMs, op, queue, { extraMs: 2 * d.timeoutMs })) as [number[]];
    let replicated = Math.min(...counts);
    if (connections.some((c, i) => c === null || this.waitsOf(c).closes !== closes[i])) replicated = 0;
    if (replicated < d.replicas) {
      throw new EchoMqError(notReplicated(op, queue, replicated, d.replicas, d.timeoutMs), { code: 'NOT_REPLICATED', queue });
    }
    return value;
  }

  /**
   * The connections that took writes to `shards`: the one connection, or on a Cluster the client's
   * connection to each master serving one of their slots now (null where none is known: then the
   * write is not confirmed).
   */
  private connectionsOf(shards: LaneKeys[]): (Redis | null)[] {
    if (this.cluster === null) return [this.client as Redis];
    const masters = new Set<string>();
    for (const k of shards) {
      const master = this.cluster.slots[keySlot(k.ring)]?.[0];
      masters.add(master ?? '');
    }
    const nodes = this.cluster.nodes('master');
    return [...masters].map((key) => nodes.find((n) => `${n.options.host}:${n.options.port}` === key) ?? null);
  }

  private waitsOf(connection: Redis): ConnectionWaits {
    let w = this.waits.get(connection);
    if (w === undefined) {
      w = new ConnectionWaits(connection, this.settings!.replicas, this.settings!.timeoutMs);
      this.waits.set(connection, w);
    }
    return w;
  }

  private async fsynced(op: string, queue: string, connections: (Redis | null)[]): Promise<void> {
    const d = this.settings!;
    this.waitAof ??= this.client.call('COMMAND', 'INFO', 'WAITAOF').then((r) => Array.isArray(r) && r[0] != null);
    if (!(await this.waitAof)) throw new EchoMqError(fsyncUnsupported(), { code: 'MISCONFIGURED', argument: 'durability.fsync', queue });
    await Promise.all(connections.map(async (c) => {
      const reply = await (c ?? (this.client as Redis)).call('WAITAOF', '1', '0', String(d.timeoutMs)).catch((err: unknown) => {
        // NOTE: e.g. the server refuses WAITAOF while appendonly is off.
        throw fromServerError(op, queue, this.prefix, err);
      });
      const [local] = reply as [number, number];
      if (local < 1) throw new EchoMqError(notReplicated(op, queue, 0, 1, d.timeoutMs, 'fsynced to the append-only file'), { code: 'NOT_REPLICATED', queue });
    }));
  }
}
