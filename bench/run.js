#!/usr/bin/env node
'use strict';
// The EchoMQ benchmark, side by side with BullMQ on the same private redis-server in the same run.
//
//   npm run bench         build, then every scenario, 3 rounds each → bench/results/latest.{md,json}, skew.svg, tenants.svg, tenants-spread.svg, costly.svg
//                         (the shards scenario starts its own 3-master Redis Cluster beside the bench's server; it needs redis-cli)
//   npm run bench:smoke   build, then every scenario once at tiny sizes (seconds; CI) → bench/results/tmp/
//
// Options: --smoke, --rounds=N, --only=submit,e2e,…, --consumer=library|bench (the EchoMQ consumer:
// the library's claim loop, the default, or the bench's own two-stream loop on LanesService). Anything but the plain full run writes to
// bench/results/tmp/, so the committed results are only ever replaced by a full run.
// Exits non-zero on any error; timings are reported, never asserted.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { BenchServer } = require('./lib/server');
const { makeRow, renderMarkdown, renderSkewSvg, targetsSummary, markdownTable } = require('./lib/report');
const { loadavg, withTimeout } = require('./lib/measure');
const { echoLanes, bullQueue } = require('./lib/engines');
const { echoConsumer, bullConsumer } = require('./lib/consumers');
const { echoFill, bullFill } = require('./lib/fill');
const { deferred } = require('./lib/measure');

const SCENARIOS = ['submit', 'e2e', 'skew', 'tenants', 'tenants-spread', 'costly', 'weights', 'weighted', 'scale', 'inspect', 'idle', 'memory', 'compat', 'shards'];

const FULL = {
  rounds: 3,
  submitSequential: 5000,
  submitInFlight: 20000,
  submitBatched: 50000,
  e2eJobs: 50000,
  e2eLanes: 1000,
  breakdownJobs: 20000,
  skewHeavy: 10000,
  tenantSeconds: 15,
  tenantSpreadSeconds: 10,
  costlySeconds: 10,
  weightTurns: 400,
  weightedJobs: 30000,
  weightedLanes: 1000,
  scaleLanes: [10, 1000, 100000],
  scaleJobs: 200000,
  scaleClaims: 20000,
  scaleDepthSamples: 2000,
  scaleDeep: 1000000,
  inspectLanes: 100000,
  idleConsumers: 10,
  idleSettleMs: 1000,
  idleWindowMs: 10000,
  latencySamples: 300,
  latencyGapMs: 5,
  memoryJobs: 100000,
  compatShapes: [[50000, 1000], [10000, 10000]],
  shardsLanes: 1000,
  shardsJobsPerLane: 20,
  shardsFlood: 2000,
  shardsLightLanes: 50,
  shardsLightJobs: 3,
  drainTimeoutMs: 180000,
  warmupJobs: 5000,
  watchdogMs: 20 * 60 * 1000,
};

const SMOKE = {
  rounds: 1,
  submitSequential: 100,
  submitInFlight: 300,
  submitBatched: 1000,
  e2eJobs: 1000,
  e2eLanes: 50,
  breakdownJobs: 500,
  skewHeavy: 300,
  tenantSeconds: 1,
  tenantLoad: 0.2,
  tenantSpreadSeconds: 1,
  tenantSpreadLoad: 0.2,
  costlySeconds: 1,
  costlyLoad: 0.2,
  weightTurns: 20,
  weightedJobs: 1500,
  weightedLanes: 50,
  scaleLanes: [10, 100, 1000],
  scaleJobs: 2000,
  scaleClaims: 200,
  scaleDepthSamples: 50,
  scaleDeep: 5000,
  inspectLanes: 2000,
  idleConsumers: 2,
  idleSettleMs: 200,
  idleWindowMs: 1000,
  latencySamples: 20,
  latencyGapMs: 5,
  memoryJobs: 2000,
  compatShapes: [[1000, 50], [200, 200]],
  shardsLanes: 30,
  shardsJobsPerLane: 3,
  shardsFlood: 60,
  shardsLightLanes: 5,
  shardsLightJobs: 3,
  drainTimeoutMs: 30000,
  warmupJobs: 200,
  watchdogMs: 3 * 60 * 1000,
};

function parseArgs(argv) {
  const args = { smoke: false, only: null, rounds: null, consumer: 'library' };
  for (const a of argv) {
    if (a === '--smoke') args.smoke = true;
    else if (a.startsWith('--only=')) args.only = a.slice(7).split(',').filter(Boolean);
    else if (a.startsWith('--rounds=')) args.rounds = Number(a.slice(9));
    else if (a.startsWith('--consumer=')) args.consumer = a.slice(11);
    else throw new Error(`unknown option ${a} (use --smoke, --rounds=N, --only=${SCENARIOS.join(',')})`);
  }
  if (args.only) for (const s of args.only) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}`);
  if (args.rounds !== null && !(Number.isInteger(args.rounds) && args.rounds >= 1)) throw new Error('--rounds must be an integer >= 1');
  if (!['bench', 'library'].includes(args.consumer)) throw new Error('--consumer must be bench or library');
  return args;
}

const log = (msg) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Runs each engine `rounds` times, alternating which goes first, on a flushed database each time. */
function alternator(ctx) {
  return async (label, runs) => {
    const out = { echomq: [], bullmq: [] };
    for (let r = 0; r < ctx.rounds; r++) {
      const order = r % 2 === 0 ? ['echomq', 'bullmq'] : ['bullmq', 'echomq'];
      for (const engine of order) {
        if (!runs[engine]) continue;
        await ctx.admin.flushdb();
        log(`  ${label}: round ${r + 1}/${ctx.rounds}, ${engine}`);
        out[engine].push(await runs[engine](r));
      }
    }
    await ctx.admin.flushdb();
    return out;
  };
}

/** Loads both sides' scripts and warms the JIT, so round 1 is not a cold start. Not recorded. */
async function warmUp(ctx) {
  const { server, admin, cfg } = ctx;
  const n = cfg.warmupJobs;
  await admin.flushdb();
  const client = server.client();
  try {
    const lanes = echoLanes(client);
    await echoFill(lanes, 'warmup', n, (i) => `lane-${i % 100}`);
    const done = deferred();
    let count = 0;
    const c = echoConsumer(server, 'warmup', { concurrency: 50, handler: () => undefined, onDone: () => ++count === n && done.resolve(), onError: done.reject });
    await withTimeout(done.promise, cfg.drainTimeoutMs, 'warm-up (EchoMQ)').finally(() => c.stop());
  } finally {
    await client.quit();
  }
  await admin.flushdb();
  const queue = bullQueue(server, 'warmup');
  try {
    await bullFill(queue, n, (i) => `lane-${i % 100}`);
    const done = deferred();
    let count = 0;
    const c = bullConsumer(server, 'warmup', { concurrency: 50, handler: () => undefined, onDone: () => ++count === n && done.resolve(), onError: done.reject });
    await withTimeout(done.promise, cfg.drainTimeoutMs, 'warm-up (BullMQ)').finally(() => c.stop());
  } finally {
    await queue.close();
  }
  await admin.flushdb();
}

/** A full run refreshes the table in bench/README.md (between its results markers). */
function updateReadme(results) {
  const file = path.join(__dirname, 'README.md');
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const start = '<!-- results:start -->';
  const end = '<!-- results:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return;
  const m = results.meta;
  const t = results.targets;
  const body = [
    `Run of ${m.finishedAt.slice(0, 16).replace('T', ' ')} UTC (${Math.round(m.durationS)} s, ${m.rounds} rounds): ${m.redis}, Node ${m.node}, BullMQ ${m.bullmq},`,
    `${m.cpus} × ${m.cpuModel}; load average ${m.loadStart[0]} at the start, ${m.loadEnd[0]} at the end. **${t.met} of ${t.total} targets met.**`,
    '',
    markdownTable(results.rows),
  ].join('\n');
  fs.writeFileSync(file, text.slice(0, a + start.length) + '\n' + body + '\n' + text.slice(b));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const cfg = { ...(args.smoke ? SMOKE : FULL) };
  if (args.rounds) cfg.rounds = args.rounds;
  const partial = args.smoke || Boolean(args.only) || Boolean(args.rounds) || args.consumer !== 'library';
  // The EchoMQ consumer: the bench's loop (bench/lib/echo-consumer.js) or the library's claim loop.
  process.env.ECHOMQ_BENCH_CONSUMER = args.consumer;
  const outDir = path.join(__dirname, 'results', partial ? 'tmp' : '');
  const names = args.only || SCENARIOS;
  const started = Date.now();

  log(`${args.smoke ? 'smoke' : 'full'} run: ${names.join(', ')}; ${cfg.rounds} round(s) each`);
  const server = await BenchServer.start();
  const killOnExit = () => server.killNow();
  process.on('exit', killOnExit);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      log(`${sig}: stopping redis-server`);
      server.killNow();
      process.exit(130);
    });
  }
  const watchdog = setTimeout(() => {
    log(`watchdog: the run took longer than ${cfg.watchdogMs / 1000} s; giving up`);
    server.killNow();
    process.exit(1);
  }, cfg.watchdogMs);
  watchdog.unref();

  const admin = server.client();
  const results = {
    meta: {
      mode: args.smoke ? 'smoke' : 'full',
      partial,
      command: `node bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
      startedAt: new Date(started).toISOString(),
      node: process.version,
      redis: server.version.replace(/ sha=.*/, ''),
      bullmq: require('bullmq/package.json').version,
      cpus: os.cpus().length,
      cpuModel: (os.cpus()[0] && os.cpus()[0].model) || 'unknown CPU',
      memGb: os.totalmem() / 2 ** 30,
      loadStart: loadavg(),
      rounds: cfg.rounds,
      consumer: args.consumer === 'library' ? 'library claim loop (dist/runner/claim-loop)' : 'bench loop (bench/lib/echo-consumer.js)',
      config: cfg,
      port: server.port,
    },
    rows: [],
    scenarios: {},
    errors: [],
  };
  let chart = null;
  const files = {};
  try {
    await admin.config('SET', 'save', '');
    const addr = /addr=(\S+)/.exec(await admin.client('INFO'));
    const ctx = {
      server, admin, cfg, rounds: cfg.rounds, smoke: args.smoke, log, row: makeRow, adminAddr: addr ? addr[1] : null,
    };
    ctx.alternate = alternator(ctx);
    log(`redis-server ${results.meta.redis} on 127.0.0.1:${server.port}; warming up`);
    await warmUp(ctx);
    for (const name of names) {
      const t0 = Date.now();
      log(`scenario ${name}`);
      try {
        const scenario = require(`./scenarios/${name}`);
        const res = await scenario.run(ctx);
        results.rows.push(...res.rows);
        results.scenarios[name] = { seconds: (Date.now() - t0) / 1000, loadavg: loadavg(), details: res.details };
        if (res.chart) chart = res.chart;
        Object.assign(files, res.files || {});
        for (const r of res.rows) if (r.met !== null) log(`  ${r.met ? 'met    ' : 'NOT met'} ${r.scenario}: ${r.metric} (${r.target})`);
      } catch (err) {
        log(`  ERROR in ${name}: ${err && err.stack ? err.stack : err}`);
        results.errors.push({ scenario: name, message: String(err && err.message ? err.message : err), stack: err && err.stack });
      }
      await admin.flushdb().catch(() => undefined);
      log(`  ${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    await admin.quit().catch(() => admin.disconnect());
    await server.stop();
    clearTimeout(watchdog);
  }

  results.meta.finishedAt = new Date().toISOString();
  results.meta.durationS = (Date.now() - started) / 1000;
  results.meta.loadEnd = loadavg();
  results.targets = targetsSummary(results.rows);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  fs.writeFileSync(path.join(outDir, 'latest.md'), renderMarkdown(results) + '\n');
  if (chart) files['skew.svg'] = renderSkewSvg(chart);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(outDir, name), text);
  if (!partial) updateReadme(results);
  log(`wrote ${path.relative(process.cwd(), outDir) || '.'}/latest.md, latest.json${Object.keys(files).map((f) => `, ${f}`).join('')} in ${results.meta.durationS.toFixed(0)} s`);
  log(`targets met: ${results.targets.met} of ${results.targets.total}`);
  if (results.errors.length) {
    log(`${results.errors.length} scenario(s) failed: ${results.errors.map((e) => e.scenario).join(', ')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`fatal: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);
