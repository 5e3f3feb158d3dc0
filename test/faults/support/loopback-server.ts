import { AddressInfo, createServer, Server, Socket } from 'net';

/** A TCP server on a free loopback port that hands each connection to `onClient` (the test proxies' base). */
export async function listenOnLoopback(onClient: (client: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onClient);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
