'use strict';
// submit: admitting jobs, one by one (awaited in turn, and 100 in flight) and in batches, against
// Queue.add / Queue.addBulk. Jobs are spread over 1,000 lanes (the lane rides in BullMQ's data).
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoFill, bullFill } = require('../lib/fill');
const { measure, perJob, payload } = require('../lib/measure');

const Q = 'submit';
const LANES = 1000;
const laneOf = (i) => `lane-${i % LANES}`;

async function inFlight(count, parallel, one) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await one(next++);
  }));
}

async function run(ctx) {
  const { cfg, admin, server } = ctx;
  const variants = [
    { key: 'sequential', label: 'one by one, awaited in turn', count: cfg.submitSequential },
    { key: 'inflight', label: 'one by one, 100 in flight', count: cfg.submitInFlight },
    { key: 'batched', label: 'batched (submitMany / addBulk, 1,000 per call)', count: cfg.submitBatched },
  ];

  const results = await ctx.alternate('submit', {
    echomq: async () => {
      const out = {};
      const client = server.client();
      try {
        const lanes = echoLanes(client);
        for (const v of variants) {
          await admin.flushdb();
          let m;
          if (v.key === 'sequential') {
            m = await measure(admin, async () => {
              for (let i = 0; i < v.count; i++) await lanes.submit(Q, laneOf(i), payload(i, laneOf(i)));
            });
          } else if (v.key === 'inflight') {
            m = await measure(admin, () => inFlight(v.count, 100, (i) => lanes.submit(Q, laneOf(i), payload(i, laneOf(i)))));
          } else {
            m = await measure(admin, () => echoFill(lanes, Q, v.count, laneOf, { batch: 1000 }));
          }
          const pending = await client.zcard(lanes.keysOf(Q).lane('lane-0'));
          if (pending !== Math.ceil(v.count / LANES)) throw new Error(`submit ${v.key}: lane-0 holds ${pending} jobs`);
          out[v.key] = perJob(m, v.count);
        }
      } finally {
        await client.quit();
      }
      return out;
    },
    bullmq: async () => {
      const out = {};
      for (const v of variants) {
        await admin.flushdb();
        const queue = bullQueue(server, Q);
        try {
          await queue.waitUntilReady();
          let m;
          if (v.key === 'sequential') {
            m = await measure(admin, async () => {
              for (let i = 0; i < v.count; i++) await queue.add('job', payload(i, laneOf(i)));
            });
          } else if (v.key === 'inflight') {
            m = await measure(admin, () => inFlight(v.count, 100, (i) => queue.add('job', payload(i, laneOf(i)))));
          } else {
            m = await measure(admin, () => bullFill(queue, v.count, laneOf, { batch: 1000 }));
          }
          const waiting = await queue.getWaitingCount();
          if (waiting !== v.count) throw new Error(`addBulk ${v.key}: ${waiting} waiting, expected ${v.count}`);
          out[v.key] = perJob(m, v.count);
        } finally {
          await queue.close();
        }
      }
      return out;
    },
  });

  const pick = (engine, key, field) => results[engine].map((r) => r[key][field]);
  const rows = [];
  for (const v of variants) {
    const n = v.count.toLocaleString('en-US');
    rows.push(ctx.row({
      scenario: 'submit', metric: `${v.label}: jobs/s (${n} jobs)`, unit: 'jobs/s', better: 'higher',
      echomq: pick('echomq', v.key, 'jobsPerSec'), bullmq: pick('bullmq', v.key, 'jobsPerSec'),
      target: v.key === 'batched' ? { text: '≥ 2× addBulk', check: (r) => r.ratio >= 2 } : null,
    }));
    rows.push(ctx.row({
      scenario: 'submit', metric: `${v.label}: Redis CPU µs/job`, unit: 'µs', better: 'lower', digits: 1,
      echomq: pick('echomq', v.key, 'redisUsPerJob'), bullmq: pick('bullmq', v.key, 'redisUsPerJob'),
    }));
    rows.push(ctx.row({
      scenario: 'submit', metric: `${v.label}: Node CPU µs/job`, unit: 'µs', better: 'lower', digits: 1,
      echomq: pick('echomq', v.key, 'nodeUsPerJob'), bullmq: pick('bullmq', v.key, 'nodeUsPerJob'),
    }));
  }
  return { rows, details: { variants: variants.map(({ key, label, count }) => ({ key, label, count })), rounds: results } };
}

module.exports = { name: 'submit', run };
