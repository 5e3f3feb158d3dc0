#!/usr/bin/env node
'use strict';
// Server instructions per job, counted by valgrind's callgrind: a deterministic measure of what the
// scripts cost, unmoved by whatever else runs on the machine (wall-clock and CPU figures on a shared
// VM move by ±25% from run to run). Not part of `npm run bench`: it needs valgrind and runs the
// server some 50× slower (about 3 minutes).
//
//   npm run build && node bench/tools/instructions.js [path/to/another/build]
//   ECHOMQ_COMPAT=echomq node bench/tools/instructions.js   (the same with the module option compat: 'echomq')
//   ECHOMQ_TENANTS=50 node bench/tools/instructions.js      (the 1,000 lanes spread over 50 tenants)
//   ECHOMQ_FAIRNESS=cost node bench/tools/instructions.js   (the queue in cost fairness, costs 1..10; or time)
//   ECHOMQ_FUNCTIONS=off node bench/tools/instructions.js    (the scripts by EVALSHA, as without FUNCTION)
//
// The optional argument is another copy of the package (a folder with dist/ and lua/, e.g. a
// checkout of an older commit, built) to compare with; by default the working tree's dist/.
// Phases, per job: submitMany over 1,000 lanes; claimMany(25); complete one per script;
// claim one per script; wclaim one per script (weight 1: one job a call); completeMany over 25 jobs per script;
// submit one per script; the contract's floor (contract-floor.js:
// only what the keyspace makes every job do); BullMQ's addBulk and its Worker's drain (concurrency 50,
// removeOnComplete). Then the whole life of each, and its ratio to BullMQ's.
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const IORedis = require('ioredis');

const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..'));
const { LanesService } = require(path.join(root, 'dist'));
const { resolveEchoMqOptions } = require(path.join(root, 'dist', 'echomq.options'));
const { loadScripts } = require(path.join(root, 'dist', 'scripts', 'lua-loader'));
const { freePort } = require('../lib/server');
const { contractFloor } = require('./contract-floor');

const N = 4000;
const quiet = { log() {}, warn() {}, error() {} };
const payload = (n, lane) => ({ n, lane, text: 'hello from the bench' });

async function main() {
  try {
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('needs valgrind (callgrind_control on PATH)');
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'echomq-callgrind-'));
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p.out`, 'redis-server',
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const pid = String(child.pid);
  try {
    // valgrind takes a few seconds to bring the server up; until then connections are refused.
    const c = new IORedis({ host: '127.0.0.1', port, maxRetriesPerRequest: null, retryStrategy: (n) => (n > 100 ? null : 100) });
    c.on('error', () => undefined);
    await c.ping();
    const dump = () => {
      execFileSync('callgrind_control', ['--dump=phase', pid], { stdio: 'ignore' });
      const files = fs.readdirSync(dir).filter((f) => /^cg\..*\.out\.\d+$/.test(f))
        .sort((a, b) => fs.statSync(path.join(dir, a)).mtimeMs - fs.statSync(path.join(dir, b)).mtimeMs);
      const file = path.join(dir, files[files.length - 1]);
      const text = fs.readFileSync(file, 'utf8');
      fs.unlinkSync(file);
      return Number((/^totals:\s+(\d+)/m.exec(text) || /^summary:\s+(\d+)/m.exec(text))[1]);
    };
    const perJob = {};
    const phase = async (label, jobs, fn) => {
      execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
      await fn();
      const ir = dump();
      perJob[label] = ir / jobs;
      console.log(`${label.padEnd(44)} ${(ir / jobs / 1000).toFixed(1).padStart(7)} k instructions/job`);
    };

    const client = new IORedis({ host: '127.0.0.1', port, enableAutoPipelining: true });
    const compat = process.env.ECHOMQ_COMPAT ? { compat: process.env.ECHOMQ_COMPAT } : {};
    const lanes = new LanesService(client, resolveEchoMqOptions({ logger: quiet, ...compat }));
    const Q = 'ir';
    const tenants = Number(process.env.ECHOMQ_TENANTS || 0);
    const by = process.env.ECHOMQ_FAIRNESS || 'jobs';
    // The mode lives in the queue's meta hash, so it is set again after every FLUSHDB (outside the counts).
    const fairness = async () => {
      if (by !== 'jobs') await lanes.fairness(Q, { by });
    };
    const fill = async (n, L) => {
      for (let i = 0; i < n; i += 1000) {
        const items = [];
        for (let j = i; j < Math.min(n, i + 1000); j++) {
          const item = { group: `lane-${j % L}`, payload: payload(j, `lane-${j % L}`) };
          if (tenants > 0) item.opts = { tenant: `tenant-${(j % L) % tenants}` };
          if (by === 'cost') item.opts = { ...item.opts, cost: 1 + (j % 10) };
          items.push(item);
        }
        await lanes.submitMany(Q, items);
      }
    };
    // Load every script once, outside the counts.
    await fairness();
    await fill(200, 100);
    await lanes.claimMany(Q, 10);
    const warm = await lanes.claim(Q);
    await lanes.complete(Q, warm.id, warm.attempt);
    await c.flushdb();
    await fairness();
    console.log(`EchoMQ (${root}), ${loadScripts(path.join(root, 'lua')).length} scripts; ${N} jobs per phase; fairness by ${by}`);

    await phase('EchoMQ submitMany, 1,000 lanes', N, () => fill(N, 1000));
    await fill(N, 1000);
    const held = [];
    await phase('EchoMQ claimMany(25)', N, async () => {
      while (held.length < N) {
        const r = await Promise.all([lanes.claimMany(Q, 25), lanes.claimMany(Q, 25)]);
        held.push(...r[0].jobs, ...r[1].jobs);
      }
    });
    await phase('EchoMQ complete, one per script', N, async () => {
      for (let i = 0; i < held.length; i += 50) await Promise.all(held.slice(i, i + 50).map((j) => lanes.complete(Q, j.id, j.attempt)));
    });
    await phase('EchoMQ claim, one per script', 2000, async () => {
      for (let i = 0; i < 2000; i += 50) await Promise.all(Array.from({ length: 50 }, () => lanes.claim(Q)));
    });
    await phase('EchoMQ wclaim, one per script', 2000, async () => {
      for (let i = 0; i < 2000; i += 50) await Promise.all(Array.from({ length: 50 }, () => lanes.wclaim(Q)));
    });
    await c.flushdb();
    await fairness();
    await fill(2 * N, 1000);
    const again = [];
    while (again.length < N) again.push(...(await lanes.claimMany(Q, 50)).jobs);
    await phase('EchoMQ completeMany, 25 jobs per script', N, async () => {
      for (let i = 0; i < again.length; i += 25) {
        const r = await lanes.completeMany(Q, again.slice(i, i + 25).map((j) => ({ jobId: j.id, token: j.attempt })));
        if (r.some((ok) => !ok)) throw new Error('completeMany refused an ack');
      }
    });
    await c.flushdb();
    await fairness();
    await phase('EchoMQ submit, one per script', 2000, async () => {
      for (let i = 0; i < 2000; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => lanes.submit(Q, `lane-${(i + j) % 1000}`, payload(i + j, `lane-${(i + j) % 1000}`),
          tenants > 0 ? { tenant: `tenant-${((i + j) % 1000) % tenants}` } : undefined)));
      }
    });
    await contractFloor(client, phase, N, payload);
    await client.quit();

    await c.flushdb();
    const { Queue, Worker } = require('bullmq');
    const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
    const queue = new Queue('irb', { connection, defaultJobOptions: { removeOnComplete: true } });
    await queue.waitUntilReady();
    const add = async (n) => {
      for (let i = 0; i < n; i += 1000) {
        const items = [];
        for (let j = i; j < Math.min(n, i + 1000); j++) items.push({ name: 'job', data: payload(j, `lane-${j % 1000}`) });
        await queue.addBulk(items);
      }
    };
    await add(200);
    await c.flushdb();
    await phase('BullMQ addBulk', N, () => add(N));
    await phase('BullMQ Worker drain (concurrency 50)', N, async () => {
      let done = 0;
      await new Promise((resolve, reject) => {
        const w = new Worker('irb', async () => undefined, { connection, concurrency: 50 });
        w.on('completed', () => ++done === N && resolve(w.close()));
        w.on('error', reject);
      });
    });
    await queue.close();
    await c.quit();
    const life = (...labels) => labels.reduce((sum, l) => sum + perJob[l], 0);
    const bull = life('BullMQ addBulk', 'BullMQ Worker drain (concurrency 50)');
    const lives = [
      ['EchoMQ whole life (the three batch phases)', life('EchoMQ submitMany, 1,000 lanes', 'EchoMQ claimMany(25)', 'EchoMQ completeMany, 25 jobs per script')],
      ['Contract floor whole life', life(...Object.keys(perJob).filter((l) => l.startsWith('Contract floor') && !l.endsWith('one per script')))],
      ['BullMQ whole life', bull],
    ];
    for (const [label, ir] of lives) {
      console.log(`${label.padEnd(44)} ${(ir / 1000).toFixed(1).padStart(7)} k instructions/job  ${(ir / bull).toFixed(2)}× BullMQ`);
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
