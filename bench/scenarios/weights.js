'use strict';
// weights: four backlogged lanes with weights 1, 2, 4 and 8, served by one claimer through wclaim
// (each call: one step of the ring, then `weight` heads of that lane). Measured on the order of
// service: each lane's share against its ideal w/Σw; the largest normalized lag
// max|served_i/w_i − served_j/w_j| after any claim; Jain's fairness index of served_i/w_i over every
// window of 100 consecutive claims. BullMQ has no weights: the same submissions (interleaved
// across the four producers) go through its single line, as a reference.
const { echoLanes, bullQueue } = require('../lib/engines');
const { bullConsumer } = require('../lib/consumers');
const { echoFill, bullFill } = require('../lib/fill');
const { withTimeout, deferred } = require('../lib/measure');
const { jain } = require('../lib/stats');

const Q = 'weights';
const WEIGHTS = [1, 2, 4, 8];
const LANES = WEIGHTS.map((w) => `w${w}`);
const WINDOW = 100;

/** Submit order: round robin over the lanes while each still has jobs to give. */
function submitOrder(turns) {
  const depth = WEIGHTS.map((w) => w * (turns + 5));
  const seq = [];
  for (let k = 0; k < Math.max(...depth); k++) for (let i = 0; i < LANES.length; i++) if (k < depth[i]) seq.push(LANES[i]);
  return seq;
}

/**
 * claims: [[laneIndex, count], ...] in service order (one entry per claim).
 * Returns shares, the largest lag after any claim, and Jain over sliding windows of WINDOW claims
 * (and, for reference, of WINDOW jobs).
 */
function analyse(claims) {
  const served = WEIGHTS.map(() => 0);
  let maxLag = 0;
  for (const [i, k] of claims) {
    served[i] += k;
    const norm = served.map((s, j) => s / WEIGHTS[j]);
    maxLag = Math.max(maxLag, Math.max(...norm) - Math.min(...norm));
  }
  const total = served.reduce((a, b) => a + b, 0);
  const wsum = WEIGHTS.reduce((a, b) => a + b, 0);
  const shares = served.map((s, i) => ({ lane: LANES[i], weight: WEIGHTS[i], served: s, share: s / total, ideal: WEIGHTS[i] / wsum }));
  const maxShareErr = Math.max(...shares.map((s) => Math.abs(s.share - s.ideal)));

  const windowJain = (units) => {
    // units: array of [laneIndex, count]; sliding windows of WINDOW units
    let min = 1;
    let windows = 0;
    const inWin = WEIGHTS.map(() => 0);
    for (let t = 0; t < units.length; t++) {
      inWin[units[t][0]] += units[t][1];
      if (t >= WINDOW) inWin[units[t - WINDOW][0]] -= units[t - WINDOW][1];
      if (t >= WINDOW - 1) {
        windows += 1;
        min = Math.min(min, jain(inWin.map((s, j) => s / WEIGHTS[j])));
      }
    }
    return { min, windows };
  };
  const jobs = [];
  for (const [i, k] of claims) for (let j = 0; j < k; j++) jobs.push([i, 1]);
  return {
    claims: claims.length,
    jobs: total,
    shares,
    maxShareErrPct: maxShareErr * 100,
    maxLag,
    jainClaimWindows: windowJain(claims),
    jainJobWindows: windowJain(jobs),
  };
}

async function run(ctx) {
  const { server } = ctx;
  const turns = ctx.cfg.weightTurns;
  const seq = submitOrder(turns);
  const results = await ctx.alternate('weights', {
    echomq: async () => {
      const client = server.client({ enableAutoPipelining: true });
      try {
        const lanes = echoLanes(client);
        for (let i = 0; i < LANES.length; i++) await lanes.weight(Q, LANES[i], WEIGHTS[i]);
        await echoFill(lanes, Q, seq.length, (i) => seq[i], { batch: 1000 });
        const claims = [];
        const acks = [];
        for (let c = 0; c < turns * LANES.length; c++) {
          const jobs = await lanes.wclaim(Q);
          if (jobs.length === 0) throw new Error('weights: a backlogged queue served nothing');
          const lane = jobs[0].group;
          if (jobs.some((j) => j.group !== lane)) throw new Error('weights: one wclaim served two lanes');
          claims.push([LANES.indexOf(lane), jobs.length]);
          for (const j of jobs) acks.push(lanes.complete(Q, j.id, j.attempt));
        }
        const ok = await Promise.all(acks);
        if (ok.some((x) => !x)) throw new Error('weights: a complete was refused');
        return analyse(claims);
      } finally {
        await client.quit();
      }
    },
    bullmq: async () => {
      const queue = bullQueue(server, Q);
      let c;
      try {
        await queue.waitUntilReady();
        await bullFill(queue, seq.length, (i) => seq[i], { batch: 1000 });
        const want = turns * WEIGHTS.reduce((a, b) => a + b, 0);
        const order = [];
        const all = deferred();
        c = bullConsumer(server, Q, {
          concurrency: 50,
          handler: (job) => {
            if (order.length < want) order.push([LANES.indexOf(job.data.lane), 1]);
            if (order.length === want) all.resolve();
          },
          onError: (err) => all.reject(err),
        });
        await withTimeout(all.promise, ctx.cfg.drainTimeoutMs, 'weights (BullMQ)');
        return analyse(order);
      } finally {
        if (c) await c.stop();
        await queue.close();
      }
    },
  });
  const pick = (engine, f) => results[engine].map(f);
  const rows = [
    ctx.row({
      scenario: 'weights', metric: `largest share error vs ideal w/Σw, percentage points (weights 1:2:4:8, ${turns} turns)`, unit: 'pp', better: 'lower', digits: 2,
      echomq: pick('echomq', (r) => r.maxShareErrPct), bullmq: pick('bullmq', (r) => r.maxShareErrPct),
    }),
    ctx.row({
      scenario: 'weights', metric: 'largest normalized lag |served_i/w_i − served_j/w_j| after any claim', unit: '', better: 'lower', digits: 2,
      echomq: pick('echomq', (r) => r.maxLag), bullmq: pick('bullmq', (r) => r.maxLag),
      target: { text: '< 3 always', check: (r) => r.echomq.max < 3 },
    }),
    ctx.row({
      scenario: 'weights', metric: `lowest Jain index of served/weight, any window of ${WINDOW} claims`, unit: '', better: 'higher', digits: 4,
      echomq: pick('echomq', (r) => r.jainClaimWindows.min), bullmq: pick('bullmq', (r) => r.jainClaimWindows.min),
      target: { text: '≥ 0.99 every window', check: (r) => r.echomq.min >= 0.99 },
    }),
    ctx.row({
      scenario: 'weights', metric: `lowest Jain index, any window of ${WINDOW} jobs (stricter)`, unit: '', better: 'higher', digits: 4,
      echomq: pick('echomq', (r) => r.jainJobWindows.min), bullmq: pick('bullmq', (r) => r.jainJobWindows.min),
    }),
  ];
  return { rows, details: { weights: WEIGHTS, turns, submitted: seq.length, rounds: results } };
}

module.exports = { name: 'weights', run, analyse };
