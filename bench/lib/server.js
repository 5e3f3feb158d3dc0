'use strict';
// A private redis-server for the bench: a free loopback port (never 6379), no persistence, its own
// directory; started and always stopped by run.js.
const { spawn, spawnSync } = require('child_process');
const { mkdtempSync, rmSync } = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const IORedis = require('ioredis');

const HOST = '127.0.0.1';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

/** Whether a server answers PING on `port` (a raw socket: no client to clean up). */
function ping(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, HOST);
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

class BenchServer {
  constructor(port, dir, child, bin) {
    this.port = port;
    this.dir = dir;
    this.child = child;
    this.bin = bin;
    this.host = HOST;
  }

  static async start() {
    const bin = process.env.REDIS_SERVER_BIN || 'redis-server';
    const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (probe.error) throw new Error(`the bench needs a redis-server binary (looked for "${bin}")`);
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'echomq-bench-'));
    const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no',
      '--protected-mode', 'yes', '--loglevel', 'warning', '--maxclients', '10000'];
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const server = new BenchServer(port, dir, child, bin);
    server.version = probe.stdout.trim();
    const deadline = Date.now() + 10000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at start (port ${port}): ${stderr}`);
      if (await ping(port)) return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`redis-server did not answer on port ${port}: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** A new ioredis client on this server; the caller quits it. */
  client(extra = {}) {
    return new IORedis({ host: HOST, port: this.port, maxRetriesPerRequest: null, lazyConnect: false, ...extra });
  }

  /** Connection options for BullMQ (it opens its own connections). */
  get connection() {
    return { host: HOST, port: this.port, maxRetriesPerRequest: null };
  }

  /** Stops the process (SIGKILL: nothing to persist) and removes its directory. Idempotent. */
  stop() {
    return new Promise((resolve) => {
      const child = this.child;
      const finish = () => {
        try {
          rmSync(this.dir, { recursive: true, force: true });
        } catch {
          /* best effort */
        }
        resolve();
      };
      if (!child || child.exitCode !== null || child.signalCode !== null) return finish();
      child.once('exit', finish);
      child.kill('SIGKILL');
    });
  }

  /** Synchronous last resort for process exit paths. */
  killNow() {
    try {
      if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
}

/** Parses an INFO reply into { field: value } (numbers where they are numbers). */
function parseInfo(text) {
  const out = {};
  for (const line of text.split('\r\n')) {
    if (!line || line[0] === '#') continue;
    const i = line.indexOf(':');
    if (i < 0) continue;
    const k = line.slice(0, i);
    const v = line.slice(i + 1);
    out[k] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** Redis CPU seconds (user + sys of the whole server process). */
async function redisCpu(client) {
  const info = parseInfo(await client.info('cpu'));
  return info.used_cpu_sys + info.used_cpu_user;
}

async function infoOf(client, section) {
  return parseInfo(await client.info(section));
}

/** cmdstat_* lines as { name: { calls, usec } }. */
async function commandStats(client) {
  const info = parseInfo(await client.info('commandstats'));
  const out = {};
  for (const [k, v] of Object.entries(info)) {
    if (!k.startsWith('cmdstat_')) continue;
    const m = /calls=(\d+),usec=(\d+)/.exec(String(v));
    if (m) out[k.slice(8)] = { calls: Number(m[1]), usec: Number(m[2]) };
  }
  return out;
}

module.exports = { BenchServer, parseInfo, redisCpu, infoOf, commandStats, freePort, ping, HOST };
