'use strict';
// memory: Redis bytes per pending job — INFO memory used_memory (less the client buffers,
// mem_clients_normal, which come and go with the traffic) before and after N jobs with a small
// payload are queued and left waiting. EchoMQ is measured with the jobs over 1,000 lanes (100 per
// lane) and in one lane; BullMQ with the same payloads waiting in its queue (default job options).
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoFill, bullFill } = require('../lib/fill');
const { sleep } = require('../lib/measure');
const { infoOf } = require('../lib/server');

const Q = 'memory';

async function datasetBytes(admin) {
  const m = await infoOf(admin, 'memory');
  return m.used_memory - (m.mem_clients_normal || 0);
}

async function bytesPerJob(admin, n, fill) {
  await sleep(50);
  const before = await datasetBytes(admin);
  await fill();
  await sleep(200);
  const after = await datasetBytes(admin);
  return (after - before) / n;
}

async function run(ctx) {
  const { server, admin, cfg } = ctx;
  const n = cfg.memoryJobs;
  const results = await ctx.alternate('memory', {
    echomq: async () => {
      const client = server.client();
      try {
        const lanes = echoLanes(client);
        const spread = await bytesPerJob(admin, n, () => echoFill(lanes, Q, n, (i) => `lane-${i % 1000}`, { batch: 1000 }));
        await admin.flushdb();
        const oneLane = await bytesPerJob(admin, n, () => echoFill(lanes, Q, n, () => 'lane-0', { batch: 1000 }));
        return { spread, oneLane };
      } finally {
        await client.quit();
      }
    },
    bullmq: async () => {
      const queue = bullQueue(server, Q, { defaultJobOptions: {} });
      try {
        await queue.waitUntilReady();
        const waiting = await bytesPerJob(admin, n, () => bullFill(queue, n, (i) => `lane-${i % 1000}`, { batch: 1000 }));
        const count = await queue.getWaitingCount();
        if (count !== n) throw new Error(`memory: ${count} BullMQ jobs waiting, expected ${n}`);
        return { spread: waiting, oneLane: waiting };
      } finally {
        await queue.close();
      }
    },
  });
  const pick = (engine, f) => results[engine].map((r) => r[f]);
  const rows = [
    ctx.row({
      scenario: 'memory', metric: `Redis bytes per pending job (${n.toLocaleString('en-US')} jobs over 1,000 lanes; BullMQ: waiting)`, unit: 'B', better: 'lower', digits: 0,
      echomq: pick('echomq', 'spread'), bullmq: pick('bullmq', 'spread'),
      target: { text: '≤ 0.5× BullMQ', check: (r) => r.ratio <= 0.5 },
    }),
    ctx.row({
      scenario: 'memory', metric: `Redis bytes per pending job (${n.toLocaleString('en-US')} jobs in one lane)`, unit: 'B', better: 'lower', digits: 0,
      echomq: pick('echomq', 'oneLane'), bullmq: pick('bullmq', 'oneLane'),
      target: { text: '≤ 0.5× BullMQ', check: (r) => r.ratio <= 0.5 },
    }),
  ];
  return { rows, details: { jobs: n, rounds: results } };
}

module.exports = { name: 'memory', run };
