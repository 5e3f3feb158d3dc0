'use strict';
// weighted: what weights cost a consumer. The library's @Weighted() claim loop (many weighted turns per
// round trip, wclaimMany) drains the same backlog as the plain loop (claimMany), both at concurrency 50
// with a handler that returns at once, on a flushed database each, alternating which goes first:
//   wide — N jobs over 1,000 lanes, every weight 1 (a paid tenant's weight must not slow the queue);
//   deep — N jobs over 4 lanes of weights 1, 2, 4, 8, each as deep as its weight's share, so all four
//          stay backlogged to the end.
// Drain jobs/s and Redis CPU per job of each, the weighted loop as a ratio of the plain one; and, for
// deep, the largest normalized lag |served_i/w_i − served_j/w_j| in the order the handlers started
// (exact weighted turns keep it ≤ 1). BullMQ has no weights, so it has no column here.
const { echoLanes } = require('../lib/engines');
const { echoConsumer } = require('../lib/consumers');
const { echoFill } = require('../lib/fill');
const { measure, perJob, withTimeout, deferred } = require('../lib/measure');

const Q = 'weighted';
const CONCURRENCY = 50;
const WEIGHTS = [1, 2, 4, 8];

/** The two backlogs: which lane job i goes to, and the weights to set. */
function layouts(lanesCount) {
  const wsum = WEIGHTS.reduce((a, b) => a + b, 0);
  const perTurn = [];
  WEIGHTS.forEach((w, i) => {
    for (let k = 0; k < w; k++) perTurn.push(`w${WEIGHTS[i]}`);
  });
  return {
    wide: { laneOf: (i) => `lane-${i % lanesCount}`, weights: [] },
    // Submitted in turn order, so each lane holds n·w/Σw jobs.
    deep: { laneOf: (i) => perTurn[i % wsum], weights: WEIGHTS.map((w) => [`w${w}`, w]) },
  };
}

/** Largest |served_i/w_i − served_j/w_j| over the handler start order. */
function largestLag(order) {
  const served = new Map(WEIGHTS.map((w) => [`w${w}`, 0]));
  let lag = 0;
  for (const lane of order) {
    served.set(lane, served.get(lane) + 1);
    const norm = WEIGHTS.map((w) => served.get(`w${w}`) / w);
    lag = Math.max(lag, Math.max(...norm) - Math.min(...norm));
  }
  return lag;
}

async function drainRound(ctx, n, layout, weighted) {
  const { server, admin } = ctx;
  const client = server.client();
  const lanes = echoLanes(client);
  try {
    for (const [group, w] of layout.weights) await lanes.weight(Q, group, w);
    await echoFill(lanes, Q, n, layout.laneOf, { batch: 1000 });
    const seen = new Set();
    const order = [];
    let dupes = 0;
    let done = 0;
    const all = deferred();
    let c;
    const drain = await measure(admin, async () => {
      c = echoConsumer(server, Q, {
        concurrency: CONCURRENCY,
        weighted,
        library: true,
        handler: (job) => {
          if (seen.has(job.id)) dupes += 1;
          seen.add(job.id);
          order.push(job.group);
        },
        onDone: () => {
          if (++done === n) all.resolve();
        },
        onError: (err) => all.reject(err),
      });
      await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, `${weighted ? 'weighted' : 'plain'} drain`);
    });
    await c.stop();
    const k = lanes.keysOf(Q);
    const [ringLen, activeLen] = await Promise.all([client.llen(k.ring), client.zcard(k.active)]);
    if (dupes || seen.size !== n || ringLen || activeLen) {
      throw new Error(`weighted (${weighted ? 'weighted' : 'plain'} loop): handled ${seen.size}/${n} (${dupes} twice), ring ${ringLen}, active ${activeLen}`);
    }
    return { ...perJob(drain, n), scriptCallsPerJob: drain.evalsha.calls / n, lag: layout.weights.length ? largestLag(order) : null };
  } finally {
    await client.quit();
  }
}

async function run(ctx) {
  const n = ctx.cfg.weightedJobs;
  const lanesCount = ctx.cfg.weightedLanes;
  const shapes = layouts(lanesCount);
  const rounds = { wide: { weighted: [], plain: [] }, deep: { weighted: [], plain: [] } };
  // NOTE: the run's warm-up drains with the plain loop only; one small weighted drain first, not
  // recorded, so round 1 of the weighted loop is not a cold start either.
  await ctx.admin.flushdb();
  await drainRound(ctx, Math.min(n, ctx.cfg.warmupJobs), shapes.deep, true);
  for (let r = 0; r < ctx.rounds; r++) {
    for (const shape of ['wide', 'deep']) {
      const order = r % 2 === 0 ? ['weighted', 'plain'] : ['plain', 'weighted'];
      for (const loop of order) {
        await ctx.admin.flushdb();
        ctx.log(`  weighted: round ${r + 1}/${ctx.rounds}, ${shape}, ${loop} loop`);
        rounds[shape][loop].push(await drainRound(ctx, n, shapes[shape], loop === 'weighted'));
      }
    }
  }
  await ctx.admin.flushdb();
  const pick = (shape, loop, f) => rounds[shape][loop].map((x) => x[f]);
  const fmt = (x) => x.toLocaleString('en-US');
  const what = {
    wide: `${fmt(n)} jobs, ${fmt(lanesCount)} lanes of weight 1, concurrency ${CONCURRENCY}`,
    deep: `${fmt(n)} jobs, 4 deep lanes of weights 1, 2, 4, 8, concurrency ${CONCURRENCY}`,
  };
  const rows = [];
  for (const shape of ['wide', 'deep']) {
    rows.push(
      ctx.row({
        scenario: 'weighted', metric: `drain jobs/s, @Weighted() loop (${what[shape]})`, unit: 'jobs/s', better: 'higher',
        echomq: pick(shape, 'weighted', 'jobsPerSec'), bullmq: null, bullmqNote: 'n/a (no weights)',
        ratioTo: { values: pick(shape, 'plain', 'jobsPerSec'), label: 'plain loop' },
        target: { text: '≥ 0.9× the plain loop', check: (row) => row.ratio >= 0.9 },
      }),
      ctx.row({
        scenario: 'weighted', metric: `drain jobs/s, plain loop, same jobs (${shape})`, unit: 'jobs/s', better: 'higher',
        echomq: pick(shape, 'plain', 'jobsPerSec'), bullmq: null, bullmqNote: 'n/a',
      }),
      ctx.row({
        scenario: 'weighted', metric: `Redis CPU µs/job, drain, @Weighted() loop (${shape})`, unit: 'µs', better: 'lower', digits: 1,
        echomq: pick(shape, 'weighted', 'redisUsPerJob'), bullmq: null, bullmqNote: 'n/a (no weights)',
        ratioTo: { values: pick(shape, 'plain', 'redisUsPerJob'), label: 'plain loop' },
        target: { text: '≤ 1.11× the plain loop (within 0.9×)', check: (row) => row.ratio <= 1 / 0.9 },
      }),
      ctx.row({
        scenario: 'weighted', metric: `Redis CPU µs/job, drain, plain loop (${shape})`, unit: 'µs', better: 'lower', digits: 1,
        echomq: pick(shape, 'plain', 'redisUsPerJob'), bullmq: null, bullmqNote: 'n/a',
      }),
    );
  }
  rows.push(ctx.row({
    scenario: 'weighted', metric: 'largest normalized lag |served_i/w_i − served_j/w_j| in handler start order, @Weighted() loop (deep)',
    unit: '', better: 'lower', digits: 2, echomq: pick('deep', 'weighted', 'lag'), bullmq: null, bullmqNote: 'n/a',
    target: { text: '≤ 1 (exact per whole turn)', check: (row) => row.echomq.max <= 1 + 1e-9 },
  }));
  return { rows, details: { jobs: n, lanes: lanesCount, concurrency: CONCURRENCY, weights: WEIGHTS, rounds } };
}

module.exports = { name: 'weighted', run, largestLag };
