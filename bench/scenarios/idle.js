'use strict';
// idle: (1) what idle consumers cost the server — the commands they send per second while there is
// no work, counted with MONITOR (a script's own redis.call()s show up as "lua" and are not counted
// as sent), over a window after they settled; (2) submit→handler latency on an idle system: one
// consumer blocked on its wake (EchoMQ: BRPOP emq:{q}:wake, then a claim; BullMQ: a Worker blocked
// on its marker), one job submitted at a time, time from the submit call to the handler.
const { echoLanes, bullQueue } = require('../lib/engines');
const { echoConsumer, bullConsumer } = require('../lib/consumers');
const { sleep, payload, withTimeout, deferred } = require('../lib/measure');
const { infoOf } = require('../lib/server');
const { percentile } = require('../lib/stats');

const Q = 'idle';
const CONCURRENCY = 50;

/** Commands sent by clients (not by scripts) during `ms`, by command name. */
async function countCommands(ctx, ms) {
  const monitorClient = ctx.server.client();
  const tally = { sent: 0, byCommand: {}, fromScripts: 0 };
  const monitor = await monitorClient.monitor();
  // NOTE: MONITOR lines still in flight when the window closes reach a connection that ioredis no
  // longer treats as monitoring, and it reports each as a "Command queue state error"; those come
  // after the count and are dropped. An error before then fails the scenario.
  let windowOver = false;
  let monitorError = null;
  monitor.on('error', (err) => {
    if (!windowOver) monitorError = err;
  });
  monitor.on('monitor', (time, args, source) => {
    if (source === 'lua') {
      tally.fromScripts += 1;
      return;
    }
    if (source === ctx.adminAddr) return;
    tally.sent += 1;
    const name = String(args[0]).toLowerCase();
    tally.byCommand[name] = (tally.byCommand[name] || 0) + 1;
  });
  const before = (await infoOf(ctx.admin, 'stats')).total_commands_processed;
  const t0 = performance.now();
  await sleep(ms);
  const seconds = (performance.now() - t0) / 1000;
  const after = (await infoOf(ctx.admin, 'stats')).total_commands_processed;
  windowOver = true;
  monitor.disconnect();
  monitorClient.disconnect();
  if (monitorError) throw monitorError;
  // The INFO pair of the admin connection is in total_commands_processed: take it out.
  return { ...tally, seconds, processed: after - before - 1 };
}

async function idleRate(ctx, engine) {
  const { server, cfg } = ctx;
  const n = cfg.idleConsumers;
  const consumers = [];
  const errors = [];
  try {
    if (engine === 'echomq') {
      for (let i = 0; i < n; i++) {
        consumers.push(echoConsumer(server, Q, { concurrency: CONCURRENCY, handler: () => undefined, onError: (e) => errors.push(e) }));
      }
    } else {
      for (let i = 0; i < n; i++) {
        const c = bullConsumer(server, Q, { concurrency: CONCURRENCY, handler: () => undefined, onError: (e) => errors.push(e) });
        consumers.push(c);
      }
      await Promise.all(consumers.map((c) => c.worker.waitUntilReady()));
    }
    await sleep(cfg.idleSettleMs);
    const t = await countCommands(ctx, cfg.idleWindowMs);
    if (errors.length) throw errors[0];
    return {
      consumers: n,
      seconds: t.seconds,
      sentPerSecPerConsumer: t.sent / t.seconds / n,
      processedPerSecPerConsumer: t.processed / t.seconds / n,
      byCommand: t.byCommand,
    };
  } finally {
    await Promise.all(consumers.map((c) => c.stop()));
  }
}

async function latency(ctx, engine) {
  const { server, cfg } = ctx;
  const samples = [];
  let pendingHandled = null;
  const onHandled = () => {
    if (pendingHandled) pendingHandled.resolve(performance.now());
  };
  const errors = [];
  let consumer;
  let producer;
  let queue;
  try {
    if (engine === 'echomq') {
      consumer = echoConsumer(server, Q, { concurrency: CONCURRENCY, handler: onHandled, onError: (e) => errors.push(e) });
      producer = server.client();
      const lanes = echoLanes(producer);
      await sleep(cfg.latencyGapMs * 4);
      for (let i = 0; i < cfg.latencySamples; i++) {
        pendingHandled = deferred();
        const t0 = performance.now();
        await lanes.submit(Q, `lane-${i % 10}`, payload(i, `lane-${i % 10}`));
        const t1 = await withTimeout(pendingHandled.promise, 10000, 'EchoMQ latency sample');
        samples.push(t1 - t0);
        await sleep(cfg.latencyGapMs);
      }
    } else {
      queue = bullQueue(server, Q);
      await queue.waitUntilReady();
      consumer = bullConsumer(server, Q, { concurrency: CONCURRENCY, handler: onHandled, onError: (e) => errors.push(e) });
      await consumer.worker.waitUntilReady();
      await sleep(cfg.latencyGapMs * 4);
      for (let i = 0; i < cfg.latencySamples; i++) {
        pendingHandled = deferred();
        const t0 = performance.now();
        await queue.add('job', payload(i, `lane-${i % 10}`));
        const t1 = await withTimeout(pendingHandled.promise, 10000, 'BullMQ latency sample');
        samples.push(t1 - t0);
        await sleep(cfg.latencyGapMs);
      }
    }
    if (errors.length) throw errors[0];
    return { samples: samples.length, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), maxMs: Math.max(...samples) };
  } finally {
    if (consumer) await consumer.stop();
    if (producer) await producer.quit();
    if (queue) await queue.close();
  }
}

async function run(ctx) {
  const rate = await ctx.alternate('idle consumers', { echomq: () => idleRate(ctx, 'echomq'), bullmq: () => idleRate(ctx, 'bullmq') });
  const lat = await ctx.alternate('idle latency', { echomq: () => latency(ctx, 'echomq'), bullmq: () => latency(ctx, 'bullmq') });
  const pick = (res, engine, f) => res[engine].map((r) => r[f]);
  const { idleConsumers: n, idleWindowMs: w, latencySamples: s } = ctx.cfg;
  const rows = [
    ctx.row({
      scenario: 'idle', metric: `commands sent per second per idle consumer (${n} consumers, ${(w / 1000).toFixed(0)} s window)`, unit: 'cmd/s', better: 'lower', digits: 2,
      echomq: pick(rate, 'echomq', 'sentPerSecPerConsumer'), bullmq: pick(rate, 'bullmq', 'sentPerSecPerConsumer'),
      target: { text: '≤ 1 per consumer', check: (r) => r.echomq.max <= 1 },
    }),
    ctx.row({
      scenario: 'idle', metric: 'commands processed per second per idle consumer, incl. inside scripts', unit: 'cmd/s', better: 'lower', digits: 2,
      echomq: pick(rate, 'echomq', 'processedPerSecPerConsumer'), bullmq: pick(rate, 'bullmq', 'processedPerSecPerConsumer'),
    }),
    ctx.row({
      scenario: 'idle', metric: `submit→handler latency p50, ms (${s} jobs, one at a time)`, unit: 'ms', better: 'lower', digits: 3,
      echomq: pick(lat, 'echomq', 'p50Ms'), bullmq: pick(lat, 'bullmq', 'p50Ms'),
      target: { text: '≤ 1 ms', check: (r) => r.echomq.median <= 1 },
    }),
    ctx.row({
      scenario: 'idle', metric: 'submit→handler latency p99, ms', unit: 'ms', better: 'lower', digits: 3,
      echomq: pick(lat, 'echomq', 'p99Ms'), bullmq: pick(lat, 'bullmq', 'p99Ms'),
      target: { text: '≤ 5 ms', check: (r) => r.echomq.median <= 5 },
    }),
  ];
  return { rows, details: { rate, latency: lat } };
}

module.exports = { name: 'idle', run };
