'use strict';
// tenants-spread: can a tenant take more of the queue by spreading its work over more lanes?
// Tenant A floods: it offers 1.5× the consumer's nominal capacity, spread round-robin over 20 lanes.
// Tenant B is small: one lane, offering 0.1× the capacity (well under half, its fair share). One
// consumer at concurrency 20, every handler sleeps 4 ms; the producer sends the jobs due every 10 ms
// in one batch, for a fixed time, the same jobs in the same order on every side.
//
// Three sides on the same server in the same run:
// - EchoMQ with tenants: A's 20 lanes submitted under tenant `a`, B's lane under `b`, so the queue's
//   ring holds two entries and A's 20 lanes share one turn;
// - EchoMQ without tenants: the very same lanes, no tenant, so A holds 20 of the ring's 21 entries;
// - BullMQ: its one FIFO line (no groups in the open-source version); the tenant rides in the data.
// Per tenant: its share of the jobs started in the window, and the wait (submit call → handler)
// p50/p99; a job still queued when the time is up counts with its wait so far (a lower bound).
const { sleep } = require('../lib/measure');
const { percentile } = require('../lib/stats');
const { pacedOffer, echoPacedSide, bullPacedSide } = require('../lib/paced-offer');
const { renderTenantsSpreadSvg } = require('../lib/tenants-spread-chart');

const Q = 'tenants-spread';
const A_LANES = 20;
const CONCURRENCY = 20;
const HANDLER_MS = 4;
const TICK_MS = 10;
/** Offered load of each tenant ÷ nominal capacity (concurrency ÷ handler time). */
const OFFER = { a: 1.5, b: 0.1 };
const TENANTS = ['a', 'b'];

/** Job i of the schedule: which tenant, and (for A) which of its lanes; the same on every side. */
function jobOf(i) {
  const perB = Math.round((OFFER.a + OFFER.b) / OFFER.b); // one job of B in every perB
  if (i % perB === perB - 1) return { tenant: 'b', lane: 'b-only' };
  const k = i - Math.floor(i / perB);
  return { tenant: 'a', lane: `a-${String(k % A_LANES).padStart(2, '0')}` };
}

/** One side's round: submit on schedule for `seconds` while the consumer runs; per-tenant figures. */
async function round({ rate, seconds }, send, startConsumer) {
  const count = Math.ceil(rate * seconds) + 1;
  const jobs = Array.from({ length: count }, (_, i) => jobOf(i));
  const started = new Float64Array(count).fill(NaN);
  const window = { end: Infinity };
  const errors = [];
  const handler = async (n) => {
    const now = performance.now();
    if (now <= window.end) started[n] = now;
    await sleep(HANDLER_MS);
  };
  const consumer = startConsumer(handler, (err) => errors.push(err));
  const { sent, submitted, t0, tEnd } = await pacedOffer({ rate, seconds, count, item: (i) => ({ n: i, ...jobs[i] }),
    send, consumer, errors, window, tickMs: TICK_MS });
  const per = Object.fromEntries(TENANTS.map((t) => [t, { jobs: 0, handled: 0, waits: [] }]));
  let handled = 0;
  for (let i = 0; i < sent; i++) {
    const p = per[jobs[i].tenant];
    p.jobs += 1;
    const ran = !Number.isNaN(started[i]);
    if (ran) {
      p.handled += 1;
      handled += 1;
    }
    p.waits.push((ran ? started[i] : tEnd) - submitted[i]);
  }
  const tenants = {};
  for (const t of TENANTS) {
    const p = per[t];
    tenants[t] = { jobs: p.jobs, handled: p.handled, share: handled ? p.handled / handled : NaN, p50: percentile(p.waits, 50), p99: percentile(p.waits, 99) };
  }
  const secs = (tEnd - t0) / 1000;
  return { seconds: secs, submitted: sent, handled, handledPerSec: handled / secs, tenants };
}

/** An EchoMQ side: `withTenants` submits A's lanes under tenant a and B's under b. */
function echoSide(ctx, cfgRound, withTenants) {
  return echoPacedSide(ctx, Q, CONCURRENCY, {
    item: (p) => ({ group: p.lane, payload: { n: p.n }, opts: withTenants ? { tenant: p.tenant } : undefined }),
  }, (send, start) => round(cfgRound, send, start));
}

async function run(ctx) {
  const { cfg } = ctx;
  const seconds = cfg.tenantSpreadSeconds;
  const capacity = (CONCURRENCY * 1000) / HANDLER_MS;
  const rate = capacity * (OFFER.a + OFFER.b) * (cfg.tenantSpreadLoad ?? 1);
  const cfgRound = { rate, seconds };

  const main = await ctx.alternate('tenants-spread', {
    echomq: echoSide(ctx, cfgRound, true),
    bullmq: bullPacedSide(ctx, Q, CONCURRENCY, (send, start) => round(cfgRound, send, start)),
  });
  const off = await ctx.alternate('tenants-spread, no tenants', { echomq: echoSide(ctx, cfgRound, false) });
  const sides = { tenants: main.echomq, lanes: off.echomq, bullmq: main.bullmq };

  const pick = (side, t, f) => sides[side].map((x) => x.tenants[t][f]);
  const label = { a: 'tenant A (20 lanes, the flood)', b: 'tenant B (1 lane)' };
  const rows = [];
  for (const t of TENANTS) {
    rows.push(ctx.row({ scenario: 'tenants-spread', metric: `share of jobs served, %: ${label[t]}, with tenants`, unit: '%', digits: 1,
      echomq: pick('tenants', t, 'share').map((x) => x * 100), bullmq: pick('bullmq', t, 'share').map((x) => x * 100) }));
    rows.push(ctx.row({ scenario: 'tenants-spread', metric: `share of jobs served, %: ${label[t]}, same lanes without tenants`, unit: '%', digits: 1,
      echomq: pick('lanes', t, 'share').map((x) => x * 100), bullmq: pick('bullmq', t, 'share').map((x) => x * 100) }));
    for (const f of ['p50', 'p99']) {
      rows.push(ctx.row({ scenario: 'tenants-spread', metric: `wait ${f}, ms: ${label[t]}, with tenants`, unit: 'ms', better: 'lower', digits: 1,
        echomq: pick('tenants', t, f), bullmq: pick('bullmq', t, f) }));
      rows.push(ctx.row({ scenario: 'tenants-spread', metric: `wait ${f}, ms: ${label[t]}, same lanes without tenants`, unit: 'ms', better: 'lower', digits: 1,
        echomq: pick('lanes', t, f), bullmq: pick('bullmq', t, f) }));
    }
  }

  // The charted round of each side: the one whose B p99 is the median.
  const medianRound = (rs) => [...rs].sort((x, y) => x.tenants.b.p99 - y.tenants.b.p99)[(rs.length - 1) >> 1];
  const chart = {
    seconds, rate, capacity, concurrency: CONCURRENCY, handlerMs: HANDLER_MS, offer: OFFER, aLanes: A_LANES,
    tenants: medianRound(sides.tenants), lanes: medianRound(sides.lanes), bullmq: medianRound(sides.bullmq),
  };
  return {
    rows,
    files: { 'tenants-spread.svg': renderTenantsSpreadSvg(chart) },
    details: { rate, seconds, capacity, concurrency: CONCURRENCY, handlerMs: HANDLER_MS, offer: OFFER, aLanes: A_LANES, rounds: sides },
  };
}

module.exports = { name: 'tenants-spread', run, jobOf };
