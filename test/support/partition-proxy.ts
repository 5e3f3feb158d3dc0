import { AddressInfo, createServer, Server, Socket } from 'net';

/** One direction of a proxied connection: what it does with each chunk depends on the proxy's mode. */
class Direction {
  /** Chunks (and, as null, the end of the stream) held while the path is dark. */
  private held: (Buffer | null)[] = [];
  /** When the last delayed chunk is due, so that chunks keep their order. */
  private lastDue = 0;

  constructor(private readonly proxy: PartitionProxy, private readonly to: Socket, private readonly fromServer: boolean,
    private readonly reset: () => void) {}

  /** A chunk (or null: the end) from the sender. */
  push(chunk: Buffer | null): void {
    if (this.proxy.dark) {
      this.held.push(chunk);
      return;
    }
    if (chunk && this.fromServer && this.proxy.takeResetArm()) {
      this.reset();
      return;
    }
    if (chunk && this.fromServer && this.proxy.takeDarkArm()) {
      this.deliver(chunk);
      this.proxy.blackhole();
      return;
    }
    const delay = this.proxy.delayMs;
    const now = Date.now();
    if (delay === 0 && this.lastDue <= now) return this.deliver(chunk);
    const due = Math.max(now + delay, this.lastDue);
    this.lastDue = due;
    setTimeout(() => this.deliver(chunk), due - Date.now());
  }

  /** Delivers what was held, in order (the path came back). */
  heal(): void {
    const held = this.held;
    this.held = [];
    for (const chunk of held) this.push(chunk);
  }

  private deliver(chunk: Buffer | null): void {
    if (this.to.destroyed) return;
    if (chunk === null) this.to.end();
    else this.to.write(chunk);
  }
}

/**
 * A TCP proxy on loopback in front of one server (a test's own redis-server), to break the path
 * between a client and the server the ways a network does, without the server or the client
 * noticing anything but what the bytes do:
 * - pass: bytes go both ways (the default, and `heal()`);
 * - `blackhole()`: nothing gets through either way, not even a FIN, as on a dropped route or a paused
 *   VM; the bytes are held, and `heal()` delivers them, in order, as a healed partition does;
 * - `resetAll()`: every open connection is reset (an RST to the client; the server sees it gone);
 * - `resetOnNextReply()`: the next chunk the server sends is dropped and its connection reset, after
 *   the server has run the command; `blackholeAfterNextReply()`: it gets through, then the path goes dark;
 * - `delay(ms)`: each chunk, each way, is delivered `ms` later (order kept).
 * New connections are accepted in every mode (a blackhole then holds their bytes).
 */
interface Pair {
  client: Socket;
  upstream: Socket;
  toClient: Direction;
  toServer: Direction;
}

export class PartitionProxy {
  private readonly pairs = new Set<Pair>();
  private darkNow = false;
  private resetArmed = false;
  private darkArmed = false;
  delayMs = 0;
  /** Connections accepted, and resets done (either kind). */
  readonly counts = { connections: 0, resets: 0 };

  private constructor(private readonly server: Server, readonly port: number, private readonly targetPort: number) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Starts a proxy on a free loopback port in front of `targetPort` (on 127.0.0.1). */
  static async start(targetPort: number): Promise<PartitionProxy> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return new PartitionProxy(server, (server.address() as AddressInfo).port, targetPort);
  }

  /** A redis:// URL to the proxied server. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Whether the path is dark now. */
  get dark(): boolean {
    return this.darkNow;
  }

  /** The path goes dark: no byte and no FIN gets through either way from now on; they are held. */
  blackhole(): void {
    this.darkNow = true;
  }

  /** Bytes flow again, what was held first, in order. */
  heal(): void {
    this.darkNow = false;
    for (const p of [...this.pairs]) {
      p.toServer.heal();
      p.toClient.heal();
      // NOTE: a side that went away while the path was dark: the other hears of it now.
      if (p.client.destroyed || p.upstream.destroyed) this.drop(p);
    }
  }

  /** Each chunk, each way, is delivered `ms` later (0: at once). */
  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** Resets every open connection; returns how many. */
  resetAll(): number {
    const pairs = [...this.pairs];
    for (const p of pairs) this.resetPair(p);
    return pairs.length;
  }

  /** The next chunk the server sends (on any connection) is dropped and that connection reset. */
  resetOnNextReply(): void {
    this.resetArmed = true;
  }

  /** The path goes dark right after the next chunk the server sends (a reply gets through, the rest does not). */
  blackholeAfterNextReply(): void {
    this.darkArmed = true;
  }

  /** @internal Consumes the armed blackhole, if any. */
  takeDarkArm(): boolean {
    const armed = this.darkArmed;
    this.darkArmed = false;
    return armed;
  }

  /** @internal Consumes the armed reset, if any. */
  takeResetArm(): boolean {
    const armed = this.resetArmed;
    this.resetArmed = false;
    return armed;
  }

  /** How many connections are open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  /** Closes every connection and the listening socket. */
  async stop(): Promise<void> {
    for (const p of [...this.pairs]) this.drop(p);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.counts.connections += 1;
    const upstream = new Socket({ allowHalfOpen: true });
    const pair = { client, upstream } as Pair;
    pair.toClient = new Direction(this, client, true, () => this.resetPair(pair));
    pair.toServer = new Direction(this, upstream, false, () => this.resetPair(pair));
    this.pairs.add(pair);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // NOTE: a socket gone on one side: on a dark path the other side does not hear of it (until heal).
    const gone = () => {
      if (!this.darkNow) this.drop(pair);
    };
    client.on('data', (d: Buffer) => pair.toServer.push(d)).on('end', () => pair.toServer.push(null));
    upstream.on('data', (d: Buffer) => pair.toClient.push(d)).on('end', () => pair.toClient.push(null));
    client.on('error', () => undefined).on('close', gone);
    upstream.on('error', () => undefined).on('close', gone);
    upstream.connect(this.targetPort, '127.0.0.1', () => client.resume());
  }

  private drop(p: Pair): void {
    this.pairs.delete(p);
    p.client.destroy();
    p.upstream.destroy();
  }

  private resetPair(p: Pair): void {
    if (!this.pairs.delete(p)) return;
    this.counts.resets += 1;
    if (!p.client.destroyed) p.client.resetAndDestroy();
    if (!p.upstream.destroyed) p.upstream.resetAndDestroy();
  }
}
