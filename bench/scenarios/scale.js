'use strict';
// scale: what one claim costs the server as the queue grows — across 10, 1,000 and 100,000 lanes
// (the same number of jobs spread thinner), and at 10 against 1,000,000 jobs in one lane.
//
// The figure is the server's own accounting of script time: INFO commandstats usec / calls of
// EVALSHA, read around windows in which nothing but claims run; the whole server's CPU per claim
// (INFO cpu) is kept beside it. All the configurations live side by side on the server (one queue
// each) and are measured interleaved — a window of one, then of the next, and so on round after
// round — so that the drift of a shared machine falls on all of them alike, and each round's figure
// is the median over its windows, so a window in which the server was descheduled does not skew it.
//
// Lanes: windows of 500 claims, 64 single claims in flight. One lane: single claims, each bracketed
// on its own and the lane topped back up after it, the same way at both depths. BullMQ has no lanes;
// its fetch (Worker.getNextJob → moveToActive) from 10 waiting jobs is measured like the one-lane
// claims, as the reference for that row.
const { echoLanes, bullQueue, bullWorker } = require('../lib/engines');
const { echoFill } = require('../lib/fill');
const { payload } = require('../lib/measure');
const { parseInfo } = require('../lib/server');
const { median } = require('../lib/stats');

const WINDOW = 500;
const WINDOW_ONE = 25;
const laneQueue = (L) => `scale-${L}`;
const deepQueue = (D) => `deep-${D}`;

/** Server counters in one INFO call: CPU seconds and script calls/µs (EVAL + EVALSHA). */
async function counters(admin) {
  const info = parseInfo(await admin.call('INFO', 'cpu', 'commandstats'));
  let calls = 0;
  let usec = 0;
  for (const k of ['cmdstat_evalsha', 'cmdstat_eval', 'cmdstat_fcall', 'cmdstat_fcall_ro']) {
    const m = /calls=(\d+),usec=(\d+)/.exec(String(info[k] || ''));
    if (m) {
      calls += Number(m[1]);
      usec += Number(m[2]);
    }
  }
  return { cpu: info.used_cpu_sys + info.used_cpu_user, calls, usec };
}

/** One window of n claims on `queue`, 64 in flight: { us, cpuUs } per claim. */
async function claimWindow(admin, lanes, queue, n, parallel = 64) {
  let left = n;
  let empty = 0;
  const a = await counters(admin);
  await Promise.all(Array.from({ length: Math.min(parallel, n) }, async () => {
    while (left-- > 0) if (!(await lanes.claim(queue))) empty += 1;
  }));
  const b = await counters(admin);
  if (empty) throw new Error(`scale: ${empty} claims on ${queue} found nothing`);
  if (b.calls - a.calls !== n) throw new Error(`scale: ${b.calls - a.calls} scripts ran in a window of ${n} claims`);
  return { us: (b.usec - a.usec) / n, cpuUs: ((b.cpu - a.cpu) * 1e6) / n };
}

/** EVAL(SHA) µs of exactly one call of fn (fn sends one script and nothing else). */
async function oneScriptUs(admin, fn) {
  const a = await counters(admin);
  await fn();
  const b = await counters(admin);
  if (b.calls - a.calls !== 1) throw new Error(`scale: expected one script, the server ran ${b.calls - a.calls}`);
  return b.usec - a.usec;
}

/** Single-claim samples, as the median over windows of WINDOW_ONE consecutive samples. */
function windowedMedian(samples) {
  const means = [];
  for (let i = 0; i < samples.length; i += WINDOW_ONE) {
    const w = samples.slice(i, i + WINDOW_ONE);
    means.push(w.reduce((x, y) => x + y, 0) / w.length);
  }
  return median(means);
}

const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;

async function run(ctx) {
  const { server, admin, cfg } = ctx;
  const rounds = ctx.rounds;
  const fmt = (n) => n.toLocaleString('en-US');
  const details = { lanes: {}, depth: {}, bullmqDepth10: [] };
  const D = cfg.scaleDeep;

  await admin.flushdb();
  const client = server.client({ enableAutoPipelining: true });
  const single = server.client();
  try {
    const lanes = echoLanes(client);
    const lanesOne = echoLanes(single);
    // Fill every configuration, each in its own queue.
    for (const L of cfg.scaleLanes) {
      ctx.log(`  scale: ${fmt(L)} lanes, filling ${fmt(cfg.scaleJobs)} jobs`);
      await echoFill(lanes, laneQueue(L), cfg.scaleJobs, (i) => `lane-${i % L}`, { batch: 1000, inFlight: 4 });
      const ringLen = await client.llen(lanes.keysOf(laneQueue(L)).ring);
      if (ringLen !== L) throw new Error(`scale: the ring holds ${ringLen} lanes, expected ${L}`);
      await lanes.claim(laneQueue(L)); // the connection's first call of the script (an EVAL) stays out
    }
    ctx.log(`  scale: one lane, filling ${fmt(D)} jobs (and one of 10)`);
    const t0 = performance.now();
    await echoFill(lanes, deepQueue(D), D, () => 'deep', { batch: 1000, inFlight: 4 });
    details.deepFillMs = performance.now() - t0;
    await echoFill(lanes, deepQueue(10), 10, () => 'deep');
    for (const d of [10, D]) {
      await lanesOne.claim(deepQueue(d));
      await lanesOne.submit(deepQueue(d), 'deep', payload(0, 'deep'));
      const depth = await client.zcard(lanes.keysOf(deepQueue(d)).lane('deep'));
      if (depth !== d) throw new Error(`scale: the lane holds ${depth} jobs, expected ${d}`);
      details.depth[d] = [];
    }
    for (const L of cfg.scaleLanes) details.lanes[L] = [];

    for (let r = 0; r < rounds; r++) {
      log(ctx, `round ${r + 1}/${rounds}: lanes`);
      const wins = Object.fromEntries(cfg.scaleLanes.map((L) => [L, []]));
      const order = r % 2 === 0 ? cfg.scaleLanes : [...cfg.scaleLanes].reverse();
      for (let done = 0; done < cfg.scaleClaims; done += WINDOW) {
        const n = Math.min(WINDOW, cfg.scaleClaims - done);
        for (const L of order) wins[L].push(await claimWindow(admin, lanes, laneQueue(L), n));
      }
      for (const L of cfg.scaleLanes) {
        details.lanes[L].push({
          usPerClaim: median(wins[L].map((w) => w.us)),
          cpuUsPerClaim: median(wins[L].map((w) => w.cpuUs)),
          meanUsPerClaim: mean(wins[L].map((w) => w.us)),
          windows: wins[L].length,
        });
      }
      log(ctx, `round ${r + 1}/${rounds}: one lane, 10 and ${fmt(D)} deep`);
      const samples = { 10: [], [D]: [] };
      for (let i = 0; i < cfg.scaleDepthSamples; i++) {
        for (const d of i % 2 === 0 ? [10, D] : [D, 10]) {
          const q = deepQueue(d);
          samples[d].push(await oneScriptUs(admin, async () => {
            if (!(await lanesOne.claim(q))) throw new Error('scale: a one-lane claim found nothing');
          }));
          await lanesOne.submit(q, 'deep', payload(i, 'deep'));
        }
      }
      for (const d of [10, D]) details.depth[d].push({ usPerClaim: windowedMedian(samples[d]), meanUsPerClaim: mean(samples[d]), claims: samples[d].length });
    }
  } finally {
    await client.quit();
    await single.quit();
  }
  await admin.flushdb();

  // BullMQ's fetch from 10 waiting jobs, bracketed the same way.
  for (let r = 0; r < rounds; r++) {
    log(ctx, `round ${r + 1}/${rounds}: BullMQ fetch, 10 waiting`);
    const queue = bullQueue(server, 'scale-bull');
    const worker = bullWorker(server, 'scale-bull', null, { autorun: false });
    worker.on('error', () => undefined);
    try {
      await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
      for (let i = 0; i < 11; i++) await queue.add('job', payload(i, 'deep'));
      await worker.getNextJob('tok-warm', { block: false });
      const us = [];
      for (let i = 0; i < cfg.scaleDepthSamples; i++) {
        us.push(await oneScriptUs(admin, async () => {
          if (!(await worker.getNextJob(`tok-${i}`, { block: false }))) throw new Error('scale: BullMQ fetch found nothing');
        }));
        await queue.add('job', payload(i, 'deep'));
      }
      details.bullmqDepth10.push({ usPerClaim: windowedMedian(us), meanUsPerClaim: mean(us), claims: us.length });
    } finally {
      await worker.close();
      await queue.close();
    }
    await admin.flushdb();
  }

  const us = (arr) => arr.map((x) => x.usPerClaim);
  const [l0] = cfg.scaleLanes;
  const lLast = cfg.scaleLanes[cfg.scaleLanes.length - 1];
  const base = us(details.lanes[l0]);
  const rows = [];
  for (const L of cfg.scaleLanes) {
    rows.push(ctx.row({
      scenario: 'scale', metric: `claim cost, Redis µs/claim, ${fmt(L)} lanes (${fmt(cfg.scaleJobs)} jobs)`, unit: 'µs', better: 'lower', digits: 2,
      echomq: us(details.lanes[L]), bullmq: null, bullmqNote: 'n/a (no lanes)',
      ratioTo: L === l0 ? null : { values: base, label: `${fmt(l0)} lanes` },
      target: L === lLast && L !== l0 ? { text: `≤ 1.1× ${fmt(l0)} lanes`, check: (r) => r.ratio <= 1.1 } : null,
    }));
  }
  rows.push(ctx.row({
    scenario: 'scale', metric: `whole-server CPU µs/claim (INFO cpu), ${fmt(lLast)} lanes`, unit: 'µs', better: 'lower', digits: 2,
    echomq: details.lanes[lLast].map((x) => x.cpuUsPerClaim), bullmq: null, bullmqNote: 'n/a',
    ratioTo: { values: details.lanes[l0].map((x) => x.cpuUsPerClaim), label: `${fmt(l0)} lanes` },
  }));
  rows.push(ctx.row({
    scenario: 'scale', metric: 'claim cost, Redis µs/claim, 10 jobs in one lane, single claims (BullMQ: fetch with 10 waiting)', unit: 'µs', better: 'lower', digits: 2,
    echomq: us(details.depth[10]), bullmq: us(details.bullmqDepth10),
  }));
  rows.push(ctx.row({
    scenario: 'scale', metric: `claim cost, Redis µs/claim, ${fmt(D)} jobs in one lane, single claims`, unit: 'µs', better: 'lower', digits: 2,
    echomq: us(details.depth[D]), bullmq: null, bullmqNote: 'n/a',
    ratioTo: { values: us(details.depth[10]), label: '10 jobs' },
  }));
  return { rows, details };
}

function log(ctx, msg) {
  ctx.log(`  scale: ${msg}`);
}

module.exports = { name: 'scale', run };
