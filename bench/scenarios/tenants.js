'use strict';
// tenants: what a multi-tenant service sees. 200 tenants submit jobs at rates that follow a Zipf
// law, steep enough that the biggest tenant sends half of all jobs; every handler takes 1–10 ms
// (uniform, drawn per job); one consumer at concurrency 50; the offered load is a little above what
// 50 slots of 5.5 ms on average can serve, so a backlog builds. After a fixed time the producer
// stops and the figures are taken: per tenant, the wait from the submit call to the handler.
//
// EchoMQ: one lane per tenant (the ring serves the tenants in turn). BullMQ: the open-source
// version has no groups, so every tenant's jobs share its one FIFO line (the tenant rides in the
// job's data). Same jobs, same submission schedule (a seeded generator), same server, alternating.
//
// The producer sends every 10 ms the jobs due by then in one batch (submitMany / addBulk); a job's
// submit time is that of its batch's call. A job still waiting when the time is up counts with the wait it
// had so far (a lower bound), so a backlog is never hidden by leaving its jobs out.
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoConsumer, bullConsumer } = require('../lib/consumers');
const { sleep } = require('../lib/measure');
const { percentile } = require('../lib/stats');
const { pacedOffer } = require('../lib/paced-offer');
const { renderTenantsSvg } = require('../lib/tenants-chart');

const Q = 'tenants';
const TENANTS = 200;
const CONCURRENCY = 50;
const HANDLER_MS = [1, 10];
const TICK_MS = 10;
/** Offered load ÷ nominal capacity (concurrency ÷ mean handler time). */
const OVERLOAD = 1.2;

/** Groups of tenants by size (rank 1 = biggest), as reported and charted. */
const GROUPS = [
  { key: 'big', label: 'the big tenant', from: 1, to: 1 },
  { key: 'mid', label: 'tenants 2–10', from: 2, to: 10 },
  { key: 'small', label: 'tenants 11–200', from: 11, to: TENANTS },
];

/** mulberry32: a small seeded generator, so both engines get the very same jobs. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The Zipf exponent s for which tenant 1 gets `share` of Σ k^-s over n tenants (bisection). */
function zipfExponent(n, share) {
  const first = (s) => {
    let sum = 0;
    for (let k = 1; k <= n; k++) sum += Math.pow(k, -s);
    return 1 / sum;
  };
  let lo = 0.5;
  let hi = 4;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (first(mid) < share) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Each tenant's share of the jobs, rank 1 first. */
function zipfShares(n, s) {
  const w = Array.from({ length: n }, (_, i) => Math.pow(i + 1, -s));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

/** The whole submission schedule: job i's tenant rank and handler time, drawn once per round. */
function schedule(count, shares, seed) {
  const cum = [];
  let c = 0;
  for (const s of shares) cum.push((c += s));
  const next = rng(seed);
  const jobs = new Array(count);
  for (let i = 0; i < count; i++) {
    const u = next();
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (cum[m] < u) lo = m + 1;
      else hi = m;
    }
    const ms = HANDLER_MS[0] + Math.floor(next() * (HANDLER_MS[1] - HANDLER_MS[0] + 1));
    jobs[i] = { rank: lo + 1, ms };
  }
  return jobs;
}

const tenantName = (rank) => `tenant-${String(rank).padStart(3, '0')}`;

/**
 * One engine's round: the producer submits the schedule at `rate` jobs/s for `seconds`, the
 * consumer runs meanwhile. Returns every job's wait (ms; started or still waiting) by tenant rank.
 */
async function round(ctx, { rate, seconds, jobs }, send, startConsumer) {
  const started = new Float64Array(jobs.length).fill(NaN);
  const window = { end: Infinity };
  let handled = 0;
  const errors = [];
  const handler = async (n) => {
    const now = performance.now();
    if (now <= window.end) {
      started[n] = now;
      handled += 1;
    }
    await sleep(jobs[n].ms);
  };
  const consumer = startConsumer(handler, (err) => errors.push(err));
  const item = (i) => ({ n: i, tenant: tenantName(jobs[i].rank), ms: jobs[i].ms });
  const { sent, submitted, t0, tEnd } = await pacedOffer({ rate, seconds, count: jobs.length, item, send, consumer, errors, window, tickMs: TICK_MS });
  const waits = Array.from({ length: TENANTS }, () => []);
  let waiting = 0;
  for (let i = 0; i < sent; i++) {
    const w = Number.isNaN(started[i]) ? tEnd - submitted[i] : started[i] - submitted[i];
    if (Number.isNaN(started[i])) waiting += 1;
    waits[jobs[i].rank - 1].push(w);
  }
  const stillWaiting = (from, to) => {
    let k = 0;
    for (let i = 0; i < sent; i++) if (jobs[i].rank >= from && jobs[i].rank <= to && Number.isNaN(started[i])) k += 1;
    return k;
  };
  const groups = {};
  for (const g of GROUPS) {
    const all = [].concat(...waits.slice(g.from - 1, g.to));
    groups[g.key] = {
      jobs: all.length,
      waiting: stillWaiting(g.from, g.to),
      p50: percentile(all, 50),
      p99: percentile(all, 99),
    };
  }
  // Per tenant (for the JSON): p50 and p99 of each tenant that sent anything.
  const perTenant = waits.map((w, i) => (w.length ? { rank: i + 1, jobs: w.length, p50: round2(percentile(w, 50)), p99: round2(percentile(w, 99)) } : null)).filter(Boolean);
  return { seconds: (tEnd - t0) / 1000, submitted: sent, handled, handledPerSec: handled / ((tEnd - t0) / 1000), waiting, groups, perTenant };
}

const round2 = (x) => Math.round(x * 100) / 100;

async function run(ctx) {
  const { server, cfg } = ctx;
  const seconds = cfg.tenantSeconds;
  const mean = (HANDLER_MS[0] + HANDLER_MS[1]) / 2;
  const capacity = (CONCURRENCY * 1000) / mean;
  const rate = capacity * OVERLOAD * (cfg.tenantLoad ?? 1);
  const s = zipfExponent(TENANTS, 0.5);
  const shares = zipfShares(TENANTS, s);
  const count = Math.ceil(rate * seconds) + 1;

  const results = await ctx.alternate('tenants', {
    echomq: async (r) => {
      const client = server.client();
      try {
        const lanes = echoLanes(client);
        const jobs = schedule(count, shares, 1000 + r);
        return await round(ctx, { rate, seconds, jobs },
          (batch) => lanes.submitMany(Q, batch.map((p) => ({ group: p.tenant, payload: p }))),
          (handler, onError) => echoConsumer(server, Q, { concurrency: CONCURRENCY, handler: (job) => handler(job.payload.n), onError }));
      } finally {
        await client.quit();
      }
    },
    bullmq: async (r) => {
      const queue = bullQueue(server, Q);
      try {
        await queue.waitUntilReady();
        const jobs = schedule(count, shares, 1000 + r);
        return await round(ctx, { rate, seconds, jobs },
          (batch) => queue.addBulk(batch.map((p) => ({ name: 'job', data: p }))),
          (handler, onError) => bullConsumer(server, Q, { concurrency: CONCURRENCY, handler: (job) => handler(job.data.n), onError }));
      } finally {
        await queue.close();
      }
    },
  });

  const shareOf = (g) => shares.slice(g.from - 1, g.to).reduce((a, b) => a + b, 0);
  const pct = (x) => `${Math.round(x * 100)}%`;
  const pick = (engine, g, f) => results[engine].map((x) => x.groups[g][f]);
  const rows = [];
  for (const g of GROUPS) {
    const who = `${g.label} (${pct(shareOf(g))} of jobs)`;
    rows.push(ctx.row({ scenario: 'tenants', metric: `wait p50, ms: ${who}`, unit: 'ms', better: 'lower', digits: 1,
      echomq: pick('echomq', g.key, 'p50'), bullmq: pick('bullmq', g.key, 'p50') }));
    rows.push(ctx.row({ scenario: 'tenants', metric: `wait p99, ms: ${who}`, unit: 'ms', better: 'lower', digits: 1,
      echomq: pick('echomq', g.key, 'p99'), bullmq: pick('bullmq', g.key, 'p99') }));
  }
  rows.push(ctx.row({
    scenario: 'tenants', metric: `jobs handled per second (offered ${Math.round(rate).toLocaleString('en-US')}/s for ${seconds} s; 50 slots of 1–10 ms serve ~${Math.round(capacity).toLocaleString('en-US')}/s)`,
    unit: 'jobs/s', better: 'higher', echomq: results.echomq.map((x) => x.handledPerSec), bullmq: results.bullmq.map((x) => x.handledPerSec),
  }));

  // The charted round of each engine: the one whose small tenants' p99 is the median.
  const medianRound = (engine) => {
    const rs = [...results[engine]].sort((a, b) => a.groups.small.p99 - b.groups.small.p99);
    return rs[(rs.length - 1) >> 1];
  };
  const chart = {
    seconds, rate, capacity, tenants: TENANTS, concurrency: CONCURRENCY, handlerMs: HANDLER_MS,
    groups: GROUPS.map((g) => ({ ...g, share: shareOf(g) })),
    echomq: medianRound('echomq'),
    bullmq: medianRound('bullmq'),
  };
  return {
    rows,
    files: { 'tenants.svg': renderTenantsSvg(chart) },
    details: { tenants: TENANTS, zipfExponent: s, shares: shares.slice(0, 10), rate, seconds, capacity, concurrency: CONCURRENCY, handlerMs: HANDLER_MS, rounds: results },
  };
}

module.exports = { name: 'tenants', run, zipfExponent, zipfShares };
