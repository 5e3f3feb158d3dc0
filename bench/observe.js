#!/usr/bin/env node
'use strict';
// What observing costs (npm run bench:observe [-- --smoke] [--rounds=N] [--jobs=N]):
//
// 1. Per job, Redis and Node CPU of a Nest app's claim loop (the library's, through its interceptor
//    wrapper), whole life: N jobs submitted in batches of 1,000 over 1,000 lanes while one consumer
//    at concurrency 50 drains them, handler returning at once. Three variants, each in a child process
//    of its own (so that whether @opentelemetry/api can be found is decided per process), rounds
//    alternating the order:
//      plain     no metrics module, no event listeners, @opentelemetry/api not installed
//      otel-api  plain, but @opentelemetry/api installed and no SDK registered (no-op spans)
//      observed  otel-api + EchoMqMetricsModule (histograms fed per job) + 'active' and 'completed'
//                listeners (prom-client 15 depends on @opentelemetry/api, so it is there too)
// 2. One metrics scrape of a queue of 100,000 lanes: server time (the slow log at threshold 0: every
//    command the scrape sent, a script with its inner calls) and wall time, averaged over 20 scrapes.
//
// --variants=plain,observed runs only those; --no-scrape skips part 2.
// Prints a markdown table and writes bench/results/observe.json (bench/results/tmp/ for --smoke).
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { BenchServer, redisCpu } = require('./lib/server');
const { median } = require('./lib/stats');

const ROOT = path.join(__dirname, '..');
const VARIANTS = ['plain', 'otel-api', 'observed'];
const Q = 'observe';
const SCALE_Q = 'observe-scale';

function parseArgs(argv) {
  const a = { smoke: false, rounds: 3, jobs: 20000, lanes: 100000, child: null, port: 0, variants: VARIANTS, noScrape: false };
  for (const x of argv) {
    if (x === '--smoke') Object.assign(a, { smoke: true, rounds: 1, jobs: 1000, lanes: 2000 });
    else if (x.startsWith('--rounds=')) a.rounds = Number(x.slice(9));
    else if (x.startsWith('--jobs=')) a.jobs = Number(x.slice(7));
    else if (x.startsWith('--lanes=')) a.lanes = Number(x.slice(8));
    else if (x.startsWith('--child=')) a.child = x.slice(8);
    else if (x.startsWith('--port=')) a.port = Number(x.slice(7));
    else if (x.startsWith('--variants=')) a.variants = x.slice(11).split(',');
    else if (x === '--no-scrape') a.noScrape = true;
    else throw new Error(`unknown option ${x}`);
  }
  return a;
}

const log = (msg) => process.stderr.write(`[observe ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

// ---------------------------------------------------------------------------------------------
// Child: one variant, one round.

function hideOpenTelemetry() {
  // NOTE: as in an app without the package: its resolution fails, so the library's probe finds nothing.
  const Module = require('module');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
      const err = new Error(`Cannot find module '${request}'`);
      err.code = 'MODULE_NOT_FOUND';
      throw err;
    }
    return resolve.call(this, request, ...rest);
  };
}

async function runVariant(variant, args) {
  // NOTE: prom-client 15 depends on @opentelemetry/api itself, so an app with the metrics has it.
  if (variant === 'plain') hideOpenTelemetry();
  require('reflect-metadata');
  const { Injectable, Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const { EchoMqModule, LaneConsumer, LanesService, OnLaneEvent } = require('../dist');
  const IORedis = require('ioredis');
  const url = `redis://127.0.0.1:${args.port}`;
  const admin = new IORedis(url);
  await admin.flushdb();

  let handled = 0;
  let activeEvents = 0;
  let completedEvents = 0;
  class Worker {
    handle() {
      handled += 1;
    }
    started() {
      activeEvents += 1;
    }
    done() {
      completedEvents += 1;
    }
  }
  LaneConsumer(Q, { concurrency: 50 })(Worker);
  Injectable()(Worker);
  const imports = [EchoMqModule.forRoot({ connection: url, logger: { log() {}, warn() {}, error: (m) => log(`error: ${m}`) } })];
  let registry;
  if (variant === 'observed') {
    const desc = (m) => Object.getOwnPropertyDescriptor(Worker.prototype, m);
    OnLaneEvent('active')(Worker.prototype, 'started', desc('started'));
    OnLaneEvent('completed')(Worker.prototype, 'done', desc('done'));
    const { Registry } = require('prom-client');
    const { EchoMqMetricsModule } = require('../dist/metrics');
    registry = new Registry();
    imports.push(EchoMqMetricsModule.forRoot({ registry }));
  }
  class AppModule {}
  Module({ imports, providers: [Worker] })(AppModule);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const lanes = app.get(LanesService);
  const completedOf = async () => (await lanes.stats(Q)).totals.completed;

  const n = args.jobs;
  const r0 = await redisCpu(admin);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const items = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) items.push({ group: `lane-${j % 1000}`, payload: { i: j, at: Date.now() } });
    await lanes.submitMany(Q, items);
  }
  while (handled < n || (await completedOf()) < n) await new Promise((r) => setTimeout(r, 10));
  const wallMs = performance.now() - t0;
  const node = process.cpuUsage(c0);
  const r1 = await redisCpu(admin);
  if (variant === 'observed') {
    const text = await registry.metrics();
    const m = /echomq_handler_seconds_count\{queue="observe",outcome="completed"\} (\d+)/.exec(text);
    if (!m || Number(m[1]) !== n) throw new Error(`observed: the handler histogram counted ${m && m[1]} of ${n}`);
    if (activeEvents !== n) throw new Error(`observed: ${activeEvents} active events of ${n}`);
  }
  await app.close();
  await admin.quit();
  return {
    variant, jobs: n, wallMs, jobsPerSec: n / (wallMs / 1000),
    redisUsPerJob: ((r1 - r0) * 1e6) / n, nodeUsPerJob: (node.user + node.system) / n,
    completedEvents,
  };
}

async function runScrape(args) {
  require('reflect-metadata');
  const { Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const { EchoMqModule, LanesService } = require('../dist');
  const { EchoMqMetricsModule } = require('../dist/metrics');
  const { Registry } = require('prom-client');
  const IORedis = require('ioredis');
  const url = `redis://127.0.0.1:${args.port}`;
  const admin = new IORedis(url);
  await admin.flushdb();
  const registry = new Registry();
  class AppModule {}
  Module({ imports: [EchoMqModule.forRoot({ connection: url, logger: { log() {}, warn: (m) => log(`warn: ${m}`), error: (m) => log(`error: ${m}`) } }), EchoMqMetricsModule.forRoot({ registry, queues: [SCALE_Q] })] })(AppModule);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const lanes = app.get(LanesService);
  // One job in each of `lanes` lanes, and a few deep lanes on top so the top-10 has something to rank.
  for (let i = 0; i < args.lanes; i += 1000) {
    const items = [];
    for (let j = i; j < Math.min(args.lanes, i + 1000); j++) items.push({ group: `tenant-${j}`, payload: { j } });
    await lanes.submitMany(SCALE_Q, items);
  }
  for (let d = 0; d < 20; d++) await lanes.submitMany(SCALE_Q, Array.from({ length: 50 + d }, (_, i) => ({ group: `deep-${d}`, payload: { i } })));
  await registry.metrics(); // warm: scripts loaded
  const scrapes = args.smoke ? 5 : 20;
  // NOTE: the slow log at threshold 0 times each script call as a whole (EVALSHA, inner calls
  // included); Redis 7 lists the scripts' inner calls too, so those are kept apart, not added.
  // The collector sends nothing but scripts (stats, topLanes).
  await admin.config('SET', 'slowlog-log-slower-than', '0');
  await admin.config('SET', 'slowlog-max-len', '100000');
  await admin.slowlog('RESET');
  const t0 = performance.now();
  let text = '';
  for (let i = 0; i < scrapes; i++) text = await registry.metrics();
  const wallMs = (performance.now() - t0) / scrapes;
  const entries = await admin.slowlog('GET', '100000');
  await admin.config('SET', 'slowlog-log-slower-than', '10000');
  let usec = 0;
  let calls = 0;
  const byCommand = {};
  for (const e of entries) {
    const [, , micros, argv] = e;
    const cmd = String(argv[0]).toLowerCase();
    if (/slowlog|config|client/.test(cmd)) continue;
    if (['evalsha', 'eval', 'fcall', 'fcall_ro'].includes(cmd)) {
      usec += Number(micros);
      calls += 1;
    }
    const c = (byCommand[cmd] ??= { calls: 0, usec: 0 });
    c.calls += 1 / scrapes;
    c.usec += Number(micros) / scrapes;
  }
  const lanesTotal = /echomq_lanes\{queue="observe-scale",state="total"\} (\d+)/.exec(text);
  await app.close();
  await admin.quit();
  return { lanes: lanesTotal ? Number(lanesTotal[1]) : null, scrapes, serverUsPerScrape: usec / scrapes, commandsPerScrape: calls / scrapes, wallMsPerScrape: wallMs, byCommand };
}

// ---------------------------------------------------------------------------------------------
// Parent.

function child(args, mode) {
  return new Promise((resolve, reject) => {
    const argv = [__filename, `--child=${mode}`, `--port=${args.port}`, `--jobs=${args.jobs}`, `--lanes=${args.lanes}`];
    if (args.smoke) argv.push('--smoke');
    const p = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} exited with ${code}`))));
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    const r = args.child === 'scrape' ? await runScrape(args) : await runVariant(args.child, args);
    process.stdout.write(JSON.stringify(r));
    return;
  }
  const server = await BenchServer.start();
  process.on('exit', () => server.killNow());
  args.port = server.port;
  try {
    const variants = args.variants;
    const runs = Object.fromEntries(variants.map((v) => [v, []]));
    for (let r = 0; r < args.rounds; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        log(`round ${r + 1}/${args.rounds}: ${v}`);
        runs[v].push(await child(args, v));
      }
    }
    if (!args.noScrape) log(`scrape of ${args.lanes} lanes`);
    const scrape = args.noScrape ? { skipped: '--no-scrape' } : await child(args, 'scrape');
    const med = (v, k) => median(runs[v].map((x) => x[k]));
    const rows = variants.map((v) => ({
      variant: v, jobsPerSec: med(v, 'jobsPerSec'), redisUsPerJob: med(v, 'redisUsPerJob'), nodeUsPerJob: med(v, 'nodeUsPerJob'),
      redisRange: [Math.min(...runs[v].map((x) => x.redisUsPerJob)), Math.max(...runs[v].map((x) => x.redisUsPerJob))],
      nodeRange: [Math.min(...runs[v].map((x) => x.nodeUsPerJob)), Math.max(...runs[v].map((x) => x.nodeUsPerJob))],
    }));
    const f = (x) => x.toFixed(1);
    const lines = [
      `| variant (${args.jobs} jobs, 1,000 lanes, concurrency 50, medians of ${args.rounds}) | jobs/s | Redis CPU µs/job | Node CPU µs/job |`,
      '| --- | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.variant} | ${Math.round(r.jobsPerSec)} | ${f(r.redisUsPerJob)} (${f(r.redisRange[0])}–${f(r.redisRange[1])}) | ${f(r.nodeUsPerJob)} (${f(r.nodeRange[0])}–${f(r.nodeRange[1])}) |`),
      '',
      scrape.skipped
        ? `Scrape at ${args.lanes} lanes: skipped (${scrape.skipped}).`
        : `Scrape of a queue of ${scrape.lanes} lanes: ${f(scrape.serverUsPerScrape)} µs of server time in ${scrape.commandsPerScrape} script calls, ${scrape.wallMsPerScrape.toFixed(2)} ms wall, per scrape (mean of ${scrape.scrapes}).`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
    const dir = path.join(__dirname, 'results', args.smoke ? 'tmp' : '');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'observe.json'), JSON.stringify({ at: new Date().toISOString(), args, runs, rows, scrape }, null, 2));
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench:observe failed: ${err.stack || err}\n`);
  process.exit(1);
});
