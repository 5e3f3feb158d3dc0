'use strict';
// end to end: a backlog of N jobs over L lanes, drained by one consumer at concurrency 50 whose
// handler returns at once: the bench's EchoMQ loop (claimMany + pipelined completes) against a
// BullMQ Worker at concurrency 50 on the same jobs. The backlog is submitted in batches first
// (submitMany / addBulk, measured too), so "whole life" = submit + claim + complete.
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoConsumer, bullConsumer } = require('../lib/consumers');
const { echoFill, bullFill } = require('../lib/fill');
const { measure, perJob, withTimeout, deferred } = require('../lib/measure');
const { commandStats } = require('../lib/server');

const Q = 'e2e';
const CONCURRENCY = 50;

async function echoRound(ctx, n, lanesCount) {
  const { server, admin } = ctx;
  const laneOf = (i) => `lane-${i % lanesCount}`;
  const client = server.client();
  const lanes = echoLanes(client);
  try {
    const sub = await measure(admin, () => echoFill(lanes, Q, n, laneOf, { batch: 1000 }));
    const seen = new Set();
    let dupes = 0;
    let done = 0;
    const all = deferred();
    let c;
    const drain = await measure(admin, async () => {
      c = echoConsumer(server, Q, {
        concurrency: CONCURRENCY,
        handler: (job) => {
          if (seen.has(job.id)) dupes += 1;
          seen.add(job.id);
        },
        onDone: () => {
          if (++done === n) all.resolve();
        },
        onError: (err) => all.reject(err),
      });
      await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, 'EchoMQ drain');
    });
    await c.stop();
    const k = lanes.keysOf(Q);
    const [stats, ringLen, activeLen] = await Promise.all([lanes.stats(Q), client.llen(k.ring), client.zcard(k.active)]);
    if (dupes || seen.size !== n || stats.totals.completed !== n || ringLen || activeLen) {
      throw new Error(`EchoMQ e2e: handled ${seen.size}/${n} (${dupes} twice), completed ${stats.totals.completed}, ring ${ringLen}, active ${activeLen}`);
    }
    return { submit: perJob(sub, n), drain: perJob(drain, n), life: { redisUsPerJob: (sub.redisCpuUs + drain.redisCpuUs) / n }, consumer: { ...c.consumer.stats } };
  } finally {
    await client.quit();
  }
}

async function bullRound(ctx, n, lanesCount) {
  const { server, admin } = ctx;
  const laneOf = (i) => `lane-${i % lanesCount}`;
  const queue = bullQueue(server, Q);
  try {
    await queue.waitUntilReady();
    const sub = await measure(admin, () => bullFill(queue, n, laneOf, { batch: 1000 }));
    const seen = new Set();
    let done = 0;
    const all = deferred();
    let c;
    const drain = await measure(admin, async () => {
      c = bullConsumer(server, Q, {
        concurrency: CONCURRENCY,
        handler: (job) => {
          seen.add(job.id);
        },
        onDone: () => {
          if (++done === n) all.resolve();
        },
        onError: (err) => all.reject(err),
      });
      await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, 'BullMQ drain');
    });
    await c.stop();
    const [waiting, active] = await Promise.all([queue.getWaitingCount(), queue.getActiveCount()]);
    if (seen.size !== n || waiting || active) throw new Error(`BullMQ e2e: handled ${seen.size}/${n}, waiting ${waiting}, active ${active}`);
    return { submit: perJob(sub, n), drain: perJob(drain, n), life: { redisUsPerJob: (sub.redisCpuUs + drain.redisCpuUs) / n } };
  } finally {
    await queue.close();
  }
}

/**
 * Where the server's time goes, phase by phase (INFO commandstats, EVALSHA µs): EchoMQ's claims
 * alone, then its completes alone; BullMQ's add, then its worker's drain (moveToFinished, which
 * also fetches the next job). One pass, after the timed rounds.
 */
async function breakdown(ctx, n, lanesCount) {
  const { server, admin } = ctx;
  const laneOf = (i) => `lane-${i % lanesCount}`;
  const out = {};
  const evalshaOf = async (fn) => {
    const a = await commandStats(admin);
    const m = await measure(admin, fn);
    const b = await commandStats(admin);
    const inner = {};
    for (const [cmd, v] of Object.entries(b)) {
      const d = { calls: v.calls - ((a[cmd] && a[cmd].calls) || 0), usec: v.usec - ((a[cmd] && a[cmd].usec) || 0) };
      if (d.calls > 0 && !['evalsha', 'fcall', 'fcall_ro', 'info'].includes(cmd)) inner[cmd] = d;
    }
    const innerCalls = Object.values(inner).reduce((s, d) => s + d.calls, 0);
    return { evalshaCalls: m.evalsha.calls, evalshaUs: m.evalsha.usec, redisCpuUs: m.redisCpuUs, innerCalls, inner };
  };
  const per = (r, jobs) => ({
    usPerCall: r.evalshaCalls ? r.evalshaUs / r.evalshaCalls : 0,
    scriptUsPerJob: r.evalshaUs / jobs,
    redisCpuUsPerJob: r.redisCpuUs / jobs,
    calls: r.evalshaCalls,
    redisCallsPerJob: r.innerCalls / jobs,
  });

  await admin.flushdb();
  const client = server.client({ enableAutoPipelining: true });
  try {
    const lanes = echoLanes(client);
    out.echomqSubmitMany = per(await evalshaOf(() => echoFill(lanes, Q, n, laneOf, { batch: 1000 })), n);
    const held = [];
    out.echomqClaimMany25 = per(await evalshaOf(async () => {
      for (;;) {
        const got = await Promise.all([lanes.claimMany(Q, 25), lanes.claimMany(Q, 25)]);
        const jobs = got[0].jobs.concat(got[1].jobs);
        if (jobs.length === 0) break;
        held.push(...jobs);
      }
    }), n);
    out.echomqComplete = per(await evalshaOf(async () => {
      for (let i = 0; i < held.length; i += 50) await Promise.all(held.slice(i, i + 50).map((j) => lanes.complete(Q, j.id, j.attempt)));
    }), n);
    await admin.flushdb();
    await echoFill(lanes, Q, n, laneOf, { batch: 1000 });
    out.echomqClaimSingle = per(await evalshaOf(async () => {
      let left = n;
      await Promise.all(Array.from({ length: 50 }, async () => {
        while (left-- > 0) await lanes.claim(Q);
      }));
    }), n);
  } finally {
    await client.quit();
  }

  await admin.flushdb();
  const queue = bullQueue(server, Q);
  try {
    await queue.waitUntilReady();
    out.bullmqAddBulk = per(await evalshaOf(() => bullFill(queue, n, laneOf, { batch: 1000 })), n);
    let done = 0;
    const all = deferred();
    let c;
    out.bullmqWorkerDrain = per(await evalshaOf(async () => {
      c = bullConsumer(server, Q, {
        concurrency: CONCURRENCY,
        handler: () => undefined,
        onDone: () => {
          if (++done === n) all.resolve();
        },
        onError: (err) => all.reject(err),
      });
      await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, 'BullMQ drain');
    }), n);
    await c.stop();
  } finally {
    await queue.close();
  }
  return out;
}

/** True when every round (EchoMQ's round i against BullMQ's round i) passes `ok(echomq, bullmq)`. */
function everyRound(row, ok) {
  const e = row.echomq.values;
  const b = row.bullmq.values;
  return e.length === b.length && e.every((x, i) => ok(x, b[i]));
}

async function run(ctx) {
  const { e2eJobs: n, e2eLanes: lanesCount } = ctx.cfg;
  const results = await ctx.alternate('e2e', {
    echomq: () => echoRound(ctx, n, lanesCount),
    bullmq: () => bullRound(ctx, n, lanesCount),
  });
  const pick = (engine, phase, field) => results[engine].map((r) => r[phase][field]);
  const what = `${n.toLocaleString('en-US')} jobs, ${lanesCount.toLocaleString('en-US')} lanes, concurrency ${CONCURRENCY}`;
  const rows = [
    ctx.row({
      scenario: 'end to end', metric: `drain throughput, jobs/s (${what})`, unit: 'jobs/s', better: 'higher',
      echomq: pick('echomq', 'drain', 'jobsPerSec'), bullmq: pick('bullmq', 'drain', 'jobsPerSec'),
      target: { text: '≥ 3× BullMQ in every round', check: (r) => everyRound(r, (e, b) => e >= 3 * b) },
    }),
    ctx.row({
      scenario: 'end to end', metric: 'Redis CPU µs/job, whole life (batched submit + claim + complete)', unit: 'µs', better: 'lower', digits: 1,
      echomq: pick('echomq', 'life', 'redisUsPerJob'), bullmq: pick('bullmq', 'life', 'redisUsPerJob'),
      target: { text: '≤ 0.33× BullMQ', check: (r) => r.ratio <= 0.33 },
    }),
    ctx.row({
      scenario: 'end to end', metric: 'Redis CPU µs/job, drain only (claim + complete)', unit: 'µs', better: 'lower', digits: 1,
      echomq: pick('echomq', 'drain', 'redisUsPerJob'), bullmq: pick('bullmq', 'drain', 'redisUsPerJob'),
    }),
    ctx.row({
      scenario: 'end to end', metric: 'Node CPU µs/job in the consumer, drain', unit: 'µs', better: 'lower', digits: 1,
      echomq: pick('echomq', 'drain', 'nodeUsPerJob'), bullmq: pick('bullmq', 'drain', 'nodeUsPerJob'),
      target: { text: '≤ 0.2× BullMQ', check: (r) => r.ratio <= 0.2 },
    }),
  ];
  ctx.log('  e2e: cost breakdown pass');
  const costs = await breakdown(ctx, ctx.cfg.breakdownJobs, lanesCount);
  return { rows, details: { jobs: n, lanes: lanesCount, concurrency: CONCURRENCY, rounds: results, breakdown: costs } };
}

module.exports = { name: 'e2e', run };
