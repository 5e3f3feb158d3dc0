import { execFile } from 'child_process';
import IORedis from 'ioredis';
import { createServer } from 'net';
import { freePort, TestRedisServer } from '../../support/redis-server';
import { HeldLink } from './held-link';
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

/** A node as one line of CLUSTER NODES describes it. */
interface NodeLine {
  id: string;
  flags: string[];
  /** The id of the master it replicates ('-' for a master). */
  master: string;
  /** Its slot ranges, as the line gives them ('0-5460'; importing/migrating entries left out). */
  slots: string[];
}

function parseNodes(text: string): NodeLine[] {
  return text.trim().split('\n').map((line) => {
    const f = line.trim().split(' ');
    return { id: f[0], flags: f[2].split(','), master: f[3], slots: f.slice(8).filter((s) => !s.startsWith('[')) };
  });
}

/** What {@link TestCluster.start} builds besides three masters. */
export interface TestClusterOptions {
  /** One replica per master: six nodes, nodes[0..2] the masters and nodes[3 + i] the replica of nodes[i]. */
  replicas?: boolean;
  /**
   * Each master announces the port of a {@link HeldLink} in front of it, so that its replica (and
   * every client) reaches it through the proxy, and {@link TestCluster.hold} can hold its replication stream.
   */
  heldLinks?: boolean;
  /** cluster-node-timeout: how long a master may be silent before it is failed (and its replica promoted). @default 3000 */
  nodeTimeoutMs?: number;
}

/** A local Redis Cluster of three masters, each a redis-server the test started on a free port, with a replica each on request. */
export class TestCluster {
  /** Node ids, in the order of `nodes`. */
  private readonly ids: string[] = [];
  /** The nodes killed and not launched again. */
  private readonly down = new Set<TestRedisServer>();

  private constructor(readonly nodes: TestRedisServer[], private readonly links: (HeldLink | undefined)[]) {}

  /**
   * Starts three cluster-enabled masters (and a replica of each, with `opts.replicas`), joins them
   * with redis-cli and waits for cluster_state:ok and, with replicas, every replication link up;
   * `extraArgs` go to every server (e.g. ['--cluster-require-full-coverage', 'no']).
   */
  static async start(extraArgs: string[] = [], opts: TestClusterOptions = {}): Promise<TestCluster> {
    const nodes: TestRedisServer[] = [];
    const links: (HeldLink | undefined)[] = [];
    const count = opts.replicas ? 6 : 3;
    try {
      for (let i = 0; i < count; i++) {
        const port = await clusterNodePort();
        // NOTE: each server runs in its own directory, so the file name cannot clash between them.
        const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 3_000), ...extraArgs];
        // NOTE: a replica's full sync otherwise waits 5 s (diskless sync delay) for more replicas to join.
        if (opts.replicas) args.push('--repl-diskless-sync-delay', '0');
        if (opts.heldLinks && i < 3) {
          links[i] = await HeldLink.start(port);
          args.push('--cluster-announce-port', String(links[i]!.port), '--cluster-announce-bus-port', String(port + 10_000));
        }
        nodes.push(await TestRedisServer.start(args, port));
      }
      // NOTE: not spawnSync: redis-cli reaches the masters at the ports they announce, whose held
      // links run in this process and must keep running meanwhile.
      await new Promise<void>((resolve, reject) => execFile('redis-cli', ['--cluster', 'create', ...nodes.slice(0, 3).map((n) => `127.0.0.1:${n.port}`),
        '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => (err
        ? reject(new Error(`redis-cli --cluster create failed: ${stdout}${stderr}`)) : resolve())));
      const cluster = new TestCluster(nodes, links);
      for (const node of nodes) cluster.ids.push(String(await cluster.ask(node, (c) => c.cluster('MYID'))));
      for (let i = 3; i < count; i++) await cluster.attachReplica(nodes[i], i - 3);
      await waitFor('cluster_state:ok on every node', () => cluster.allOk(), { timeoutMs: 20_000, intervalMs: 100 });
      return cluster;
    } catch (err) {
      await Promise.all([...nodes.map((n) => n.stop()), ...links.map((l) => l?.stop())]);
      throw err;
    }
  }

  /** Makes `replica` meet the cluster and replicate master `i`. */
  private async attachReplica(replica: TestRedisServer, i: number): Promise<void> {
    await this.ask(replica, (c) => c.cluster('MEET', '127.0.0.1', this.nodes[0].port));
    const master = this.ids[i];
    await waitFor(`node ${replica.port} to know master ${master}`,
      () => this.ask(replica, async (c) => String(await c.cluster('NODES')).includes(master)), { timeoutMs: 10_000, intervalMs: 50 });
    await this.ask(replica, (c) => c.call('CLUSTER', 'REPLICATE', master));
  }

  /** A command on one node, on a connection of its own that gives up at once when the node is down. */
  private async ask<T>(node: TestRedisServer, run: (c: IORedis) => Promise<T>): Promise<T> {
    const c = new IORedis(node.port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000, lazyConnect: true });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return await run(c);
    } finally {
      c.disconnect();
    }
  }

  private get live(): TestRedisServer[] {
    return this.nodes.filter((n) => !this.down.has(n));
  }

  /** Whether every live node is in cluster_state:ok, knows every node, and (with replicas) every replication link is up. */
  private async allOk(): Promise<boolean> {
    for (const node of this.live) {
      const ok = await this.ask(node, async (c) => {
        const info = await c.cluster('INFO');
        if (!/cluster_state:ok/.test(info) || !new RegExp(`cluster_known_nodes:${this.nodes.length}\\b`).test(info)) return false;
        const repl = await c.info('replication');
        return !/role:slave/.test(repl) || /master_link_status:up/.test(repl);
      });
      if (!ok) return false;
    }
    return this.nodes.length === 3 || (await this.masters()).every((m) => this.replicaOf(m) !== undefined);
  }

  /** The cluster as a live node sees it: each node's flags, master and slots, by node. */
  private async view(from = this.live[0]): Promise<Map<TestRedisServer, NodeLine>> {
    const lines = parseNodes(String(await this.ask(from, (c) => c.cluster('NODES'))));
    const out = new Map<TestRedisServer, NodeLine>();
    for (const line of lines) {
      const node = this.nodes[this.ids.indexOf(line.id)];
      if (node) out.set(node, line);
    }
    return out;
  }

  private lastView = new Map<TestRedisServer, NodeLine>();

  /** The masters that serve slots now, as the first live node sees it (and kept for replicaOf). */
  async masters(): Promise<TestRedisServer[]> {
    this.lastView = await this.view();
    return [...this.lastView].filter(([, l]) => l.flags.includes('master') && !l.flags.includes('fail') && l.slots.length > 0).map(([n]) => n);
  }

  /** The live replica of `master` as the last read of the cluster saw it. */
  private replicaOf(master: TestRedisServer): TestRedisServer | undefined {
    const id = this.ids[this.nodes.indexOf(master)];
    return [...this.lastView].find(([n, l]) => l.master === id && !this.down.has(n) && !l.flags.includes('fail'))?.[0];
  }

  /** The node with this port: its own, or the one its held link listens on (the port the cluster announces). */
  node(port: number): TestRedisServer {
    const i = this.nodes.findIndex((n, j) => n.port === port || this.links[j]?.port === port);
    if (i < 0) throw new Error(`no node of the cluster has port ${port}`);
    return this.nodes[i];
  }

  /** The port (its own, not an announced one) of the master that serves a hash slot. */
  async ownerOf(slot: number): Promise<number> {
    const ranges = await this.ask(this.live[0], (c) => c.cluster('SLOTS'));
    const hit = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!hit || !hit[2]) throw new Error(`no node serves slot ${slot}`);
    // NOTE: by the node's id: the port the cluster gives is the held link's where the node announces one.
    return this.nodes[this.ids.indexOf(hit[2][2])].port;
  }

  /** Holds back from now on the replication stream of the master on `port`: its replica falls behind (needs `heldLinks`). */
  hold(port: number): void {
    const link = this.links[this.nodes.indexOf(this.node(port))];
    if (!link) throw new Error(`the node on port ${port} has no held link (start the cluster with heldLinks)`);
    link.hold('replication');
  }

  /** The live replica of the master on `port`: the node that should take over its slots when it dies. */
  async heirOf(port: number): Promise<TestRedisServer> {
    await this.masters();
    const heir = this.replicaOf(this.node(port));
    if (!heir) throw new Error(`the node on port ${port} has no live replica to take over`);
    return heir;
  }

  /**
   * SIGKILLs the node on `port` and, in the same tick, cuts its held link (what was held on it is
   * lost, as in a host crash). Resolves once the process has exited.
   */
  async crash(port: number): Promise<void> {
    const node = this.node(port);
    this.down.add(node);
    const killed = node.kill('SIGKILL');
    this.links[this.nodes.indexOf(node)]?.cut();
    await killed;
  }

  /**
   * Waits until every live node sees `heir` as a master serving the slots of the crashed node on
   * `port`, the crashed node as failed, and cluster_state:ok.
   */
  async failedOver(port: number, heir: TestRedisServer, timeoutMs = 20_000): Promise<void> {
    const crashed = this.node(port);
    await waitFor(`node ${heir.port} to take over the slots of node ${crashed.port}`, async () => {
      for (const node of this.live) {
        const seen = await this.view(node);
        const [h, c] = [seen.get(heir), seen.get(crashed)];
        if (!h?.flags.includes('master') || h.slots.length === 0 || !c?.flags.includes('fail') || c.slots.length > 0) return false;
        if (!/cluster_state:ok/.test(await this.ask(node, (cl) => cl.cluster('INFO')))) return false;
      }
      return true;
    }, { timeoutMs, intervalMs: 50 });
  }

  /** Starts the crashed node on `port` again and waits until it is back, as a replica of its heir with its link up. */
  async rejoin(port: number, timeoutMs = 20_000): Promise<void> {
    const node = this.node(port);
    await node.launch();
    this.down.delete(node);
    await waitFor(`node ${port} back as a replica`, async () => {
      const repl = await this.ask(node, (c) => c.info('replication'));
      return /role:slave/.test(repl) && /master_link_status:up/.test(repl) && (await this.allOk());
    }, { timeoutMs, intervalMs: 100 });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.nodes.map((n) => n.stop()), ...this.links.map((l) => l?.stop())]);
  }
}
