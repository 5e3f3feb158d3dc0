import { Server, Socket } from 'net';
import { listenOnLoopback } from './loopback-server';

/**
 * A loopback TCP proxy for a replication link. It passes bytes both ways until `hold()`; from then
 * on what the target (the primary) sends is held back, as on a link that has fallen behind. `cut()`
 * drops the connections and everything held, as a crash of the primary's host would.
 *
 * `hold('replication')` holds only the connections a replica opened (those that sent REPLCONF or
 * PSYNC): clients that reach the same server through the proxy keep their answers (a Cluster master
 * that announces the proxy's port serves its clients and its replica through it).
 */
export class HeldLink {
  private readonly closers = new Set<() => void>();
  private holding: 'none' | 'all' | 'replication' = 'none';

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<HeldLink> {
    let link: HeldLink | undefined;
    const { server, port } = await listenOnLoopback((client) => link?.pipe(client, targetPort));
    link = new HeldLink(server, port);
    return link;
  }

  /** Holds back from now on what the target sends (on every connection, or on replicas' only). */
  hold(which: 'all' | 'replication' = 'all'): void {
    this.holding = which;
  }

  /** Drops every connection and what was held on it. */
  cut(): void {
    for (const close of [...this.closers]) close();
  }

  private pipe(client: Socket, targetPort: number): void {
    const upstream = new Socket();
    const close = () => {
      this.closers.delete(close);
      client.destroy();
      upstream.destroy();
    };
    this.closers.add(close);
    // NOTE: without this, Nagle's algorithm and delayed ACKs stall the small GETACK/ACK exchange of WAIT by ~40 ms.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pause();
    let replica = false;
    upstream.connect(targetPort, '127.0.0.1', () => {
      client.on('data', (d) => {
        // NOTE: a replica's handshake sends REPLCONF, then PSYNC; no client of the tests sends either.
        if (!replica && /REPLCONF|PSYNC/i.test(d.toString('latin1'))) replica = true;
        upstream.write(d);
      });
      client.resume();
    });
    upstream.on('data', (d) => {
      if (this.holding === 'all' || (this.holding === 'replication' && replica)) return;
      client.write(d);
    });
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
