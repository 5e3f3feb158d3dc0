'use strict';
// skew: one heavy lane of H jobs submitted first, then 10 light lanes of 10 jobs; one consumer at
// concurrency 50 starts once everything is queued. For each light job: its completion rank (its
// place in the order handlers ran, 1 = first) and its wait (ms from the consumer's start to its
// handler). BullMQ gets the same jobs in the same submit order on its single line.
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoConsumer, bullConsumer } = require('../lib/consumers');
const { echoFill, bullFill } = require('../lib/fill');
const { withTimeout, deferred } = require('../lib/measure');
const { median } = require('../lib/stats');

const Q = 'skew';
const CONCURRENCY = 50;
const LIGHT_LANES = 10;
const LIGHT_JOBS = 10;

const lightLaneOf = (i) => `light-${Math.floor(i / LIGHT_JOBS)}`;

function summary(order, total) {
  const light = order.filter((o) => o.light);
  const ranks = light.map((o) => o.rank);
  const waits = light.map((o) => o.ms);
  return {
    total,
    light: light.length,
    bestRank: Math.min(...ranks),
    medianRank: median(ranks),
    worstRank: Math.max(...ranks),
    bestWaitMs: Math.min(...waits),
    medianWaitMs: median(waits),
    worstWaitMs: Math.max(...waits),
    lightRanks: ranks.sort((a, b) => a - b),
    lightWaitsMs: waits.sort((a, b) => a - b).map((w) => Math.round(w * 100) / 100),
  };
}

async function drain(ctx, total, start) {
  const order = [];
  const all = deferred();
  let done = 0;
  let t0 = 0;
  const c = start({
    concurrency: CONCURRENCY,
    handler: (light) => order.push({ rank: order.length + 1, light, ms: performance.now() - t0 }),
    onDone: () => {
      if (++done === total) all.resolve();
    },
    onError: (err) => all.reject(err),
  }, () => (t0 = performance.now()));
  try {
    await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, 'skew drain');
  } finally {
    await c.stop();
  }
  if (order.length !== total) throw new Error(`skew: ${order.length} handled, expected ${total}`);
  return order;
}

async function run(ctx) {
  const { server } = ctx;
  const heavy = ctx.cfg.skewHeavy;
  const total = heavy + LIGHT_LANES * LIGHT_JOBS;
  const results = await ctx.alternate('skew', {
    echomq: async () => {
      const client = server.client();
      try {
        const lanes = echoLanes(client);
        await echoFill(lanes, Q, heavy, () => 'heavy', { batch: 1000 });
        await echoFill(lanes, Q, LIGHT_LANES * LIGHT_JOBS, lightLaneOf, { batch: 1000 });
        const order = await drain(ctx, total, (o, started) => {
          started();
          return echoConsumer(server, Q, { ...o, handler: (job) => o.handler(job.group !== 'heavy') });
        });
        return summary(order, total);
      } finally {
        await client.quit();
      }
    },
    bullmq: async () => {
      const queue = bullQueue(server, Q);
      try {
        await queue.waitUntilReady();
        await bullFill(queue, heavy, () => 'heavy', { batch: 1000 });
        await bullFill(queue, LIGHT_LANES * LIGHT_JOBS, lightLaneOf, { batch: 1000 });
        const order = await drain(ctx, total, (o, started) => {
          started();
          return bullConsumer(server, Q, { ...o, handler: (job) => o.handler(job.data.lane !== 'heavy') });
        });
        return summary(order, total);
      } finally {
        await queue.close();
      }
    },
  });

  const pick = (engine, field) => results[engine].map((r) => r[field]);
  const what = `${heavy.toLocaleString('en-US')} heavy + ${LIGHT_LANES}×${LIGHT_JOBS} light`;
  const rows = [
    ctx.row({
      scenario: 'skew', metric: `light jobs' worst completion rank (${what})`, unit: 'rank', better: 'lower', digits: 0,
      echomq: pick('echomq', 'worstRank'), bullmq: pick('bullmq', 'worstRank'),
      target: { text: '≤ 110 (BullMQ ~10,100)', check: (r) => r.echomq.max <= 110 },
    }),
    ctx.row({ scenario: 'skew', metric: "light jobs' median completion rank", unit: 'rank', better: 'lower', digits: 0,
      echomq: pick('echomq', 'medianRank'), bullmq: pick('bullmq', 'medianRank') }),
    ctx.row({ scenario: 'skew', metric: "light jobs' best completion rank", unit: 'rank', better: 'lower', digits: 0,
      echomq: pick('echomq', 'bestRank'), bullmq: pick('bullmq', 'bestRank') }),
    ctx.row({ scenario: 'skew', metric: "light jobs' median wait, ms from consumer start", unit: 'ms', better: 'lower', digits: 1,
      echomq: pick('echomq', 'medianWaitMs'), bullmq: pick('bullmq', 'medianWaitMs') }),
    ctx.row({ scenario: 'skew', metric: "light jobs' worst wait, ms from consumer start", unit: 'ms', better: 'lower', digits: 1,
      echomq: pick('echomq', 'worstWaitMs'), bullmq: pick('bullmq', 'worstWaitMs') }),
  ];
  // The round whose worst wait is the median one, per engine, is the one charted.
  const medianRound = (engine) => {
    const rs = [...results[engine]].sort((a, b) => a.worstWaitMs - b.worstWaitMs || a.worstRank - b.worstRank);
    return rs[(rs.length - 1) >> 1];
  };
  const chart = { total, heavy, light: LIGHT_LANES * LIGHT_JOBS, echomq: medianRound('echomq'), bullmq: medianRound('bullmq') };
  return { rows, details: { heavy, lightLanes: LIGHT_LANES, lightJobs: LIGHT_JOBS, concurrency: CONCURRENCY, rounds: results }, chart };
}

module.exports = { name: 'skew', run };
