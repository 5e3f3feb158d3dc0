'use strict';
// costly: two tenants whose jobs take unlike amounts of work. Tenant `heavy`'s handlers sleep 50 ms,
// its jobs spread round-robin over 4 lanes; tenant `light`'s sleep 5 ms, on one lane. One consumer at
// concurrency 16 (the library's claim loop); the producer sends the jobs due every 10 ms in one batch,
// for a fixed time, the same jobs in the same order on every side. Heavy offers 1.5× the consumer's
// capacity in handler time (16 slots ÷ 50 ms × 1.5 = 480 jobs/s), light 0.6× (1,920 jobs/s), so both
// stay backlogged on every side: light alone asks for more than half of the handler time.
//
// Four sides on the same server in the same run: EchoMQ with fairness by 'jobs' (no costs), by
// 'cost' (heavy's jobs declare cost 50, light's 5) and by 'time' (no costs: the server charges claim
// → ack), each tenant charged at its own level; and BullMQ's one FIFO line (no groups in the
// open-source version; the tenant rides in the data), a Worker at concurrency 16.
// Per tenant: its share of the handler time (measured durations of the handlers started in the
// window, clipped at its end), its share of the jobs started in the window, and the wait (submit call
// → handler) p50/p99; a job still queued when the time is up counts with its wait so far (a lower bound).
//
// Expected: 'cost' and 'time' are fair in time, ~50/50 of the handler time; 'jobs' gives heavy ~90%
// (a 50 ms job for each 5 ms one); BullMQ serves in offer proportion (4 light jobs to 1 heavy, so light
// gets ~29% of the time), its light jobs waiting behind the whole backlog.
const { sleep } = require('../lib/measure');
const { percentile } = require('../lib/stats');
const { pacedOffer, echoPacedSide, bullPacedSide } = require('../lib/paced-offer');
const { renderCostlySvg } = require('../lib/costly-chart');

const Q = 'costly';
const CONCURRENCY = 16;
const HEAVY_LANES = 4;
const TICK_MS = 10;
const TENANTS = ['heavy', 'light'];
const MODES = ['jobs', 'cost', 'time'];
/** Each tenant's handler, in ms. */
const HANDLER_MS = { heavy: 50, light: 5 };
/** What each tenant's jobs declare under by: 'cost' (its handler's ms, so cost and time agree). */
const COST = { heavy: 50, light: 5 };
/** Offered handler time of each tenant ÷ the consumer's capacity (concurrency slots). */
const OFFER = { heavy: 1.5, light: 0.6 };

/** Jobs per ms per slot each tenant offers. */
const jobRate = (t) => OFFER[t] / HANDLER_MS[t];

/** Job i of the schedule: which tenant, and which lane; the same on every side. */
function jobOf(i) {
  const perHeavy = Math.round((jobRate('heavy') + jobRate('light')) / jobRate('heavy')); // one heavy job in every perHeavy
  if (i % perHeavy !== 0) return { tenant: 'light', lane: 'light-0' };
  return { tenant: 'heavy', lane: `heavy-${Math.floor(i / perHeavy) % HEAVY_LANES}` };
}

/** One side's round: submit on schedule for `seconds` while the consumer runs; per-tenant figures. */
async function round({ rate, seconds }, send, startConsumer) {
  const count = Math.ceil(rate * seconds) + 1;
  const jobs = Array.from({ length: count }, (_, i) => jobOf(i));
  const started = new Float64Array(count).fill(NaN);
  const ended = new Float64Array(count).fill(NaN);
  const window = { end: Infinity };
  const errors = [];
  const handler = async (n) => {
    const now = performance.now();
    const inWindow = now <= window.end;
    if (inWindow) started[n] = now;
    await sleep(HANDLER_MS[jobs[n].tenant]);
    // The measured duration, not the nominal one: timers overshoot, more so on a busy machine.
    if (inWindow) ended[n] = performance.now();
  };
  const consumer = startConsumer(handler, (err) => errors.push(err));
  const { sent, submitted, t0, tEnd } = await pacedOffer({ rate, seconds, count, item: (i) => ({ n: i, ...jobs[i] }),
    send, consumer, errors, window, tickMs: TICK_MS });
  const per = Object.fromEntries(TENANTS.map((t) => [t, { jobs: 0, handled: 0, busyMs: 0, waits: [] }]));
  let handled = 0;
  let busyMs = 0;
  for (let i = 0; i < sent; i++) {
    const p = per[jobs[i].tenant];
    p.jobs += 1;
    const ran = !Number.isNaN(started[i]);
    if (ran) {
      // Only the part inside the window: a handler still running at the end has not used the rest yet.
      const ms = Math.min(Number.isNaN(ended[i]) ? tEnd : ended[i], tEnd) - started[i];
      p.handled += 1;
      p.busyMs += ms;
      handled += 1;
      busyMs += ms;
    }
    p.waits.push((ran ? started[i] : tEnd) - submitted[i]);
  }
  const tenants = {};
  for (const t of TENANTS) {
    const p = per[t];
    tenants[t] = {
      jobs: p.jobs,
      handled: p.handled,
      busyMs: p.busyMs,
      share: handled ? p.handled / handled : NaN,
      timeShare: busyMs ? p.busyMs / busyMs : NaN,
      meanMs: p.handled ? p.busyMs / p.handled : NaN,
      p50: percentile(p.waits, 50),
      p99: percentile(p.waits, 99),
    };
  }
  const secs = (tEnd - t0) / 1000;
  // How full the slots were: well under 1 means the consumer, not the fairness, set the shares.
  const busy = busyMs / (CONCURRENCY * (tEnd - t0));
  return { seconds: secs, submitted: sent, handled, handledPerSec: handled / secs, busy, tenants };
}

/** An EchoMQ side with fairness `by`; only 'cost' declares the jobs' costs. */
function echoSide(ctx, cfgRound, by) {
  const opts = (t) => (by === 'cost' ? { tenant: t, cost: COST[t] } : { tenant: t });
  return echoPacedSide(ctx, Q, CONCURRENCY, {
    // Fairness is kept in the queue's meta hash, which the alternator's FLUSHDB has just dropped.
    setUp: (lanes) => lanes.fairness(Q, { by }),
    item: (p) => ({ group: p.lane, payload: { n: p.n }, opts: opts(p.tenant) }),
  }, (send, start) => round(cfgRound, send, start));
}

async function run(ctx) {
  const { cfg } = ctx;
  const seconds = cfg.costlySeconds;
  const capacity = CONCURRENCY * 1000; // slot-ms per second
  const rate = capacity * (jobRate('heavy') + jobRate('light')) * (cfg.costlyLoad ?? 1);
  const cfgRound = { rate, seconds };

  const first = await ctx.alternate("costly, by: 'jobs'", {
    echomq: echoSide(ctx, cfgRound, 'jobs'),
    bullmq: bullPacedSide(ctx, Q, CONCURRENCY, (send, start) => round(cfgRound, send, start)),
  });
  const byCost = await ctx.alternate("costly, by: 'cost'", { echomq: echoSide(ctx, cfgRound, 'cost') });
  const byTime = await ctx.alternate("costly, by: 'time'", { echomq: echoSide(ctx, cfgRound, 'time') });
  const sides = { jobs: first.echomq, cost: byCost.echomq, time: byTime.echomq, bullmq: first.bullmq };

  const pick = (side, t, f) => sides[side].map((x) => x.tenants[t][f]);
  const label = { heavy: `heavy tenant (${HANDLER_MS.heavy} ms, ${HEAVY_LANES} lanes)`, light: `light tenant (${HANDLER_MS.light} ms)` };
  const rows = [];
  const shares = [['timeShare', 'share of handler time'], ['share', 'share of jobs served']];
  for (const [f, what] of shares) {
    for (const t of ['light', 'heavy']) {
      for (const by of MODES) {
        rows.push(ctx.row({ scenario: 'costly', metric: `${what}, %: ${label[t]}, by: '${by}'`, unit: '%', digits: 1,
          echomq: pick(by, t, f).map((x) => x * 100), bullmq: pick('bullmq', t, f).map((x) => x * 100) }));
      }
    }
  }
  for (const f of ['p50', 'p99']) {
    for (const by of MODES) {
      rows.push(ctx.row({ scenario: 'costly', metric: `wait ${f}, ms: ${label.light}, by: '${by}'`, unit: 'ms', better: 'lower', digits: 1,
        echomq: pick(by, 'light', f), bullmq: pick('bullmq', 'light', f) }));
    }
  }

  // The charted round of each side: the one whose light share of handler time is the median.
  const medianRound = (rs) => [...rs].sort((x, y) => x.tenants.light.timeShare - y.tenants.light.timeShare)[(rs.length - 1) >> 1];
  const chart = {
    seconds, rate, concurrency: CONCURRENCY, handlerMs: HANDLER_MS, cost: COST, offer: OFFER, heavyLanes: HEAVY_LANES,
    sides: Object.fromEntries(Object.entries(sides).map(([k, rs]) => [k, medianRound(rs)])),
  };
  return {
    rows,
    files: { 'costly.svg': renderCostlySvg(chart) },
    details: { rate, seconds, concurrency: CONCURRENCY, handlerMs: HANDLER_MS, cost: COST, offer: OFFER, heavyLanes: HEAVY_LANES, rounds: sides },
  };
}

module.exports = { name: 'costly', run, jobOf };
