import { spawnSync } from 'child_process';
import IORedis from 'ioredis';
import { createServer } from 'net';
import { freePort, TestRedisServer } from '../../support/redis-server';
import { waitFor } from './wait';

/** Whether nothing listens on a loopback port now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free port for a cluster node whose bus port (the port + 10,000, the only choice on Redis 6.2,
 * which has no cluster-port setting) is free and below 65,536: a node above 55,535 would not start.
 */
async function clusterNodePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port <= 55_535 && (await portIsFree(port + 10_000))) return port;
  }
}

/** A local Redis Cluster of three masters, each a redis-server the test started on a free port. */
export class TestCluster {
  private constructor(readonly nodes: TestRedisServer[]) {}

  /**
   * Starts three cluster-enabled servers, joins them with redis-cli and waits for cluster_state:ok;
   * `extraArgs` go to every server (e.g. ['--cluster-require-full-coverage', 'no']).
   */
  static async start(extraArgs: string[] = []): Promise<TestCluster> {
    const nodes: TestRedisServer[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        // NOTE: each server runs in its own directory, so the file name cannot clash between them.
        nodes.push(await TestRedisServer.start(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', '3000', ...extraArgs], await clusterNodePort()));
      }
      const create = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
      if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
      const cluster = new TestCluster(nodes);
      await waitFor('cluster_state:ok on every node', () => cluster.allOk(), { timeoutMs: 20_000, intervalMs: 100 });
      return cluster;
    } catch (err) {
      await Promise.all(nodes.map((n) => n.stop()));
      throw err;
    }
  }

  private async allOk(): Promise<boolean> {
    for (const node of this.nodes) {
      const c = node.client();
      try {
        const info = await c.cluster('INFO');
        if (!/cluster_state:ok/.test(info) || !/cluster_known_nodes:3/.test(info)) return false;
      } finally {
        c.disconnect();
      }
    }
    return true;
  }

  /** The port of the master that serves a hash slot. */
  async ownerOf(slot: number): Promise<number> {
    const c: IORedis = this.nodes[0].client();
    try {
      const ranges = await c.cluster('SLOTS');
      const hit = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!hit || !hit[2]) throw new Error(`no node serves slot ${slot}`);
      return Number(hit[2][1]);
    } finally {
      c.disconnect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }
}
