'use strict';
// A private three-master Redis Cluster for the bench: three redis-server processes in cluster mode on
// free loopback ports (client and bus port each chosen free, so no port + 10000 falls past 65535), each
// in its own directory, joined with `redis-cli --cluster create`; stopped (SIGKILL: nothing to keep)
// and removed by stop(), by killNow() on the way out of the process, and on a failed start.
const { spawn, spawnSync } = require('child_process');
const { mkdtempSync } = require('fs');
const os = require('os');
const path = require('path');
const IORedis = require('ioredis');
const { BenchServer, freePort, HOST, ping } = require('./server');

const MASTERS = 3;

/** `count` distinct free ports (a port just released can be handed out again, so they are collected). */
async function freePorts(count) {
  const ports = new Set();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class BenchCluster {
  constructor() {
    /** { port, busPort, dir, child, stderr } per master */
    this.nodes = [];
    this.exitHook = () => this.killNow();
  }

  /** Starts the three masters, joins them and waits until every node says cluster_state:ok. */
  static async start({ bin = process.env.REDIS_SERVER_BIN || 'redis-server', cli = process.env.REDIS_CLI_BIN || 'redis-cli' } = {}) {
    const probe = spawnSync(cli, ['--version'], { encoding: 'utf8' });
    if (probe.error) throw new Error(`the shards scenario needs redis-cli (looked for "${cli}") to join its cluster`);
    const cluster = new BenchCluster();
    process.on('exit', cluster.exitHook);
    try {
      const ports = await freePorts(MASTERS * 2);
      for (let i = 0; i < MASTERS; i++) cluster.spawnNode(bin, ports[2 * i], ports[2 * i + 1]);
      for (const node of cluster.nodes) await cluster.waitForPing(node);
      const create = spawnSync(cli, ['--cluster', 'create', ...cluster.nodes.map((n) => `${HOST}:${n.port}`), '--cluster-yes'],
        { encoding: 'utf8', timeout: 30000 });
      if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
      await cluster.waitUntilOk(20000);
      return cluster;
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  spawnNode(bin, port, busPort) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'echomq-bench-cluster-'));
    const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no',
      '--protected-mode', 'yes', '--loglevel', 'warning', '--maxclients', '10000',
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort),
      '--cluster-node-timeout', '5000'];
    // NOTE: a BenchServer, so stopping and the exit path's kill are the single server's.
    const node = Object.assign(new BenchServer(port, dir, null, bin), { busPort, stderr: '' });
    this.nodes.push(node);
    node.child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    node.child.stderr.on('data', (d) => (node.stderr += d));
    node.child.once('error', (err) => (node.stderr += String(err)));
  }

  async waitForPing(node) {
    const deadline = Date.now() + 10000;
    for (;;) {
      if (node.child.exitCode !== null) throw new Error(`cluster node on port ${node.port} exited at start: ${node.stderr}`);
      if (await ping(node.port)) return;
      if (Date.now() > deadline) throw new Error(`cluster node on port ${node.port} did not answer: ${node.stderr}`);
      await sleep(20);
    }
  }

  async waitUntilOk(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let ok = true;
      for (const node of this.nodes) {
        const c = this.nodeClient(node.port);
        try {
          const info = await c.cluster('INFO');
          if (!/cluster_state:ok/.test(info) || !new RegExp(`cluster_known_nodes:${MASTERS}\\b`).test(info)) ok = false;
        } catch {
          ok = false;
        } finally {
          c.disconnect();
        }
        if (!ok) break;
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`the cluster did not reach cluster_state:ok within ${timeoutMs / 1000} s`);
      await sleep(100);
    }
  }

  /** Ports of the masters, in start order. */
  get ports() {
    return this.nodes.map((n) => n.port);
  }

  /** Seed nodes for an ioredis Cluster (or the library's `{ cluster: seeds }` connection option). */
  get seeds() {
    return this.nodes.map((n) => ({ host: HOST, port: n.port }));
  }

  /** A plain (non-cluster) client on one master, for INFO and CLUSTER commands; the caller quits it. */
  nodeClient(port, extra = {}) {
    const c = new IORedis({ host: HOST, port, maxRetriesPerRequest: null, ...extra });
    // NOTE: a node killed at the end while a client still exists must not print an unhandled error.
    c.on('error', () => undefined);
    return c;
  }

  /** CLUSTER SLOTS as [{ from, to, port }]. */
  async slotRanges() {
    const c = this.nodeClient(this.nodes[0].port);
    try {
      const ranges = await c.cluster('SLOTS');
      return ranges.map(([from, to, master]) => ({ from: Number(from), to: Number(to), port: Number(master[1]) }));
    } finally {
      c.disconnect();
    }
  }

  /** Stops every node (SIGKILL) and removes their directories. Idempotent. */
  async stop() {
    process.removeListener('exit', this.exitHook);
    await Promise.all(this.nodes.map((node) => node.stop()));
  }

  /** Synchronous last resort for process exit paths. */
  killNow() {
    for (const node of this.nodes) node.killNow();
  }
}

/** The master port serving `slot`, from slotRanges()'s answer. */
function ownerOf(ranges, slot) {
  const hit = ranges.find((r) => slot >= r.from && slot <= r.to);
  if (!hit) throw new Error(`no master serves slot ${slot}`);
  return hit.port;
}

module.exports = { BenchCluster, ownerOf, MASTERS };
