#!/usr/bin/env node
/**
 * Runs the sample app: `node sample/run.js` (npm run sample), or its one-shot demo with `--demo`
 * (npm run demo; add `--serve` to keep its dashboard up until Ctrl-C). Builds the library and the sample when their sources changed, starts a
 * throwaway redis-server on a free loopback port unless REDIS_URL is set, runs the app with
 * REDIS_URL pointing at it, and stops the server when the app exits. `--build` forces a rebuild.
 */
'use strict';

const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const demo = args.includes('--demo');
const forceBuild = args.includes('--build');

const say = (line) => process.stderr.write(`[sample] ${line}\n`);

/** Newest modification time of the .ts and .json files under `paths` (folders walked, dist skipped). */
function newest(paths) {
  let max = 0;
  for (const p of paths) {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      const entries = fs.readdirSync(p).filter((e) => e !== 'dist' && e !== 'node_modules');
      max = Math.max(max, newest(entries.map((e) => path.join(p, e))));
    } else if (/\.(ts|json|js|css|html|svg)$/.test(p)) {
      max = Math.max(max, stat.mtimeMs);
    }
  }
  return max;
}

/** Whether any output is missing or older than the newest input. */
function stale(outputs, inputs) {
  const oldest = Math.min(...outputs.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
  return oldest === 0 || oldest < newest(inputs);
}

function run(command, commandArgs, what) {
  say(what);
  const r = spawnSync(command, commandArgs, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error || r.status !== 0) {
    say(`${what} failed${r.error ? `: ${r.error.message}` : r.signal ? ` (${r.signal})` : ` (exit ${r.status})`}.`);
    process.exit(1);
  }
}

function build() {
  const at = (...p) => path.join(ROOT, ...p);
  if (forceBuild || stale([at('dist/index.js'), at('dist/index.d.ts')], [at('lib'), at('tsconfig.build.json'), at('tsconfig.json')])) {
    run('npm', ['run', '--silent', 'build'], 'building the library (npm run build -> dist/)');
  }
  const outputs = [at('sample/dist/main.js'), at('sample/dist/demo.js')];
  const inputs = [at('sample'), at('tsconfig.sample.json'), at('tsconfig.json'), at('dist/index.d.ts')];
  if (forceBuild || stale(outputs, inputs)) {
    run(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [ROOT] }), '-p', 'tsconfig.sample.json'],
      'building the sample (tsc -p tsconfig.sample.json -> sample/dist/)');
  }
}

/** The redis-server binary: REDIS_SERVER_BIN, or the one on PATH; exits with advice when there is none. */
function redisServerBin() {
  const bin = process.env.REDIS_SERVER_BIN || 'redis-server';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    say(`No redis-server binary found (looked for "${bin}"${process.env.REDIS_SERVER_BIN ? '' : ' on PATH'}).`);
    say('Install one, e.g. `sudo apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS),');
    say('or point the sample at a running server: REDIS_URL=redis://127.0.0.1:6379 npm run sample');
    process.exit(1);
  }
  return { bin, version: (/v=(\S+)/.exec(probe.stdout) || [])[1] || '?' };
}

/** A free loopback port, never Redis's default 6379 (a developer's own server may want it). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

/** Whether a server on `port` answers PING (a raw socket, nothing to clean up). */
function ping(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** A redis-server of our own: private port, temp dir, no persistence. */
class ThrowawayRedis {
  static async start({ bin, version }) {
    for (let attempt = 1; ; attempt++) {
      const server = new ThrowawayRedis(bin, await freePort());
      try {
        await server.launch();
        say(`started redis-server ${version} on 127.0.0.1:${server.port} (pid ${server.child.pid}, throwaway, no persistence)`);
        return server;
      } catch (err) {
        await server.stop();
        // NOTE: another process can take the free port between the probe and the bind; try another.
        if (attempt >= 3) throw err;
      }
    }
  }

  constructor(bin, port) {
    this.bin = bin;
    this.port = port;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'echomq-sample-redis-'));
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async launch() {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '',
      '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'];
    // NOTE: detached, so a Ctrl-C in the terminal does not stop Redis under the app while it
    // shuts down; we stop it ourselves once the app has exited.
    this.child = spawn(this.bin, args, { cwd: this.dir, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.child.stderr.on('data', (d) => (stderr += d));
    this.child.once('error', (err) => (stderr += err.message));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`redis-server exited at start: ${stderr.trim()}`);
      if (await ping(this.port)) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}: ${stderr.trim()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  async stop() {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      say(`stopped redis-server on port ${this.port}`);
    }
    if (child) child.stderr.destroy();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Last resort when this process exits abruptly: no waiting possible, just send the signal. */
  killNow() {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

async function main() {
  let redis;
  let app;
  let stopping = null;
  const onSignal = (signal) => {
    if (stopping) return; // NOTE: npm forwards the terminal's Ctrl-C too: one signal, delivered twice.
    stopping = signal;
    // NOTE: before the app starts, main() sees `stopping` after its current step and cleans up.
    if (app && app.exitCode === null && app.signalCode === null) app.kill(signal);
  };
  const finish = async (code) => {
    const server = redis;
    redis = undefined;
    if (server) await server.stop();
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, onSignal);
  process.on('exit', () => redis && redis.killNow());
  // NOTE: `kill <npm's pid>` stops npm's shell but not us; when our parent is gone, shut down as on SIGTERM.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && onSignal('SIGTERM'), 1_000).unref();

  let url = process.env.REDIS_URL;
  // NOTE: look for redis-server before building, so a missing one is reported at once.
  const bin = url ? null : redisServerBin();
  build();
  if (stopping) return finish(130);

  if (url) {
    say(`using REDIS_URL=${url}`);
  } else {
    redis = await ThrowawayRedis.start(bin);
    url = redis.url;
  }
  if (stopping) return finish(130);

  const entry = path.join(ROOT, 'sample', 'dist', demo ? 'demo.js' : 'main.js');
  // NOTE: `--serve` keeps the demo's app (and its dashboard) up after its run, until Ctrl-C.
  const appArgs = demo && args.includes('--serve') ? ['--serve'] : [];
  app = spawn(process.execPath, [entry, ...appArgs], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, REDIS_URL: url } });
  app.once('error', (err) => {
    say(`could not start ${entry}: ${err.message}`);
    finish(1);
  });
  app.once('exit', (code, signal) => {
    // A shutdown we asked for (Ctrl-C, kill) is a clean exit; anything else passes its code on.
    const ok = code === 0 || (stopping !== null && signal === stopping);
    if (!ok) say(`the app exited with ${signal ? `signal ${signal}` : `code ${code}`}`);
    finish(ok ? 0 : code || 1);
  });
}

main().catch((err) => {
  say(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
