import { Server, Socket } from 'net';
import { listenOnLoopback } from './loopback-server';

/**
 * A loopback TCP proxy in front of a redis-server that can lose one reply: once armed, the next
 * chunk the server sends back is dropped and the client's connection is cut, after the server has
 * executed the command. The client then reconnects through the proxy and, as ioredis does with
 * commands in flight, sends the same command again.
 */
export class ReplyCutter {
  private armed = false;
  private readonly pairs = new Set<[Socket, Socket]>();
  /** How many replies were dropped. */
  cuts = 0;

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<ReplyCutter> {
    let cutter: ReplyCutter | undefined;
    const { server, port } = await listenOnLoopback((client) => cutter?.pipe(client, targetPort));
    cutter = new ReplyCutter(server, port);
    return cutter;
  }

  /** Drops the next reply and cuts that connection. */
  arm(): void {
    this.armed = true;
  }

  private pipe(client: Socket, targetPort: number): void {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pause();
    upstream.connect(targetPort, '127.0.0.1', () => {
      client.on('data', (d) => upstream.write(d));
      client.resume();
    });
    upstream.on('data', (d) => {
      if (this.armed) {
        this.armed = false;
        this.cuts += 1;
        close();
        return;
      }
      client.write(d);
    });
  }

  async stop(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
