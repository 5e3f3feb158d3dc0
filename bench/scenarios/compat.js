'use strict';
// compat: what the module option `compat: 'echomq'` costs against the default mode, on the same
// server in the same run (no BullMQ side: the comparison is EchoMQ with itself). Two shapes: many
// jobs per lane, and one job per lane (the worst case of compat mode, where every submit puts a new
// lane on the ring after an O(ring length) LPOS). A backlog is submitted with submitMany, then claimed with claimMany (batches of 50, nothing
// completed meanwhile, so the claims alone are measured), then completed with completeMany; each
// phase's script time per job comes from the server's command statistics, beside its CPU per job.
// The two modes alternate which goes first, round by round, on a flushed database each time.
const { echoLanes } = require('../lib/engines');
const { echoFill } = require('../lib/fill');
const { measure, perJob } = require('../lib/measure');

const Q = 'compat';
const BATCH = 50;

async function oneMode(ctx, compat, jobs, lanesCount) {
  const { server, admin } = ctx;
  await admin.flushdb();
  const client = server.client();
  try {
    const lanes = echoLanes(client, compat ? { compat: 'echomq' } : {});
    const submit = await measure(admin, () => echoFill(lanes, Q, jobs, (i) => `lane-${i % lanesCount}`));
    const held = [];
    const claim = await measure(admin, async () => {
      for (;;) {
        const { jobs: got } = await lanes.claimMany(Q, BATCH, { leaseMs: 600_000 });
        if (got.length === 0) return;
        for (const j of got) held.push({ jobId: j.id, token: j.attempt });
      }
    });
    if (held.length !== jobs) throw new Error(`compat: ${held.length} of ${jobs} jobs claimed`);
    const complete = await measure(admin, async () => {
      for (let i = 0; i < held.length; i += 1000) {
        const ok = await lanes.completeMany(Q, held.slice(i, i + 1000));
        if (ok.some((x) => !x)) throw new Error('compat: a complete was refused');
      }
    });
    return { submit: perJob(submit, jobs), claim: perJob(claim, jobs), complete: perJob(complete, jobs) };
  } finally {
    await client.quit();
  }
}

/**
 * Every lane under a ceiling of 2: a complete that frees a slot puts its lane back on the ring, a
 * join compat mode makes without a scan (it knows the lane was off the ring). Claims of 50 and the
 * completes of each batch alternate until the queue is drained; the whole cycle is measured.
 */
async function ceilingMode(ctx, compat, jobs, lanesCount) {
  const { server, admin } = ctx;
  await admin.flushdb();
  const client = server.client();
  try {
    const lanes = echoLanes(client, compat ? { compat: 'echomq' } : {});
    for (let i = 0; i < lanesCount; i++) await lanes.limit(Q, `lane-${i}`, 2);
    await echoFill(lanes, Q, jobs, (i) => `lane-${i % lanesCount}`);
    let done = 0;
    const cycle = await measure(admin, async () => {
      for (;;) {
        const { jobs: got } = await lanes.claimMany(Q, BATCH, { leaseMs: 600_000 });
        if (got.length === 0) return;
        const ok = await lanes.completeMany(Q, got.map((j) => ({ jobId: j.id, token: j.attempt })));
        if (ok.some((x) => !x)) throw new Error('compat: a complete was refused');
        done += got.length;
      }
    });
    if (done !== jobs) throw new Error(`compat: ${done} of ${jobs} jobs served under ceilings`);
    return { cycle: perJob(cycle, jobs) };
  } finally {
    await client.quit();
  }
}

async function run(ctx) {
  const rows = [];
  const details = [];
  for (const [jobs, lanesCount] of ctx.cfg.compatShapes) {
    const rounds = { default: [], compat: [] };
    await ctx.alternate(`compat ${jobs}/${lanesCount}`, {
      echomq: async (r) => {
        const order = r % 2 === 0 ? [false, true] : [true, false];
        for (const compat of order) rounds[compat ? 'compat' : 'default'].push(await oneMode(ctx, compat, jobs, lanesCount));
        return null;
      },
    });
    const pick = (mode, phase, f) => rounds[mode].map((x) => x[phase][f]);
    const row = (phase, f, metric) => ctx.row({
      scenario: 'compat', metric: `${metric} (${jobs.toLocaleString('en-US')} jobs over ${lanesCount.toLocaleString('en-US')} lanes), compat mode`,
      unit: 'µs', better: 'lower', digits: 2,
      echomq: pick('compat', phase, f), bullmqNote: 'n/a', ratioTo: { values: pick('default', phase, f), label: 'default mode' },
    });
    rows.push(
      row('claim', 'evalshaUsPerJob', 'claim script µs per job (claimMany of 50)'),
      row('claim', 'redisUsPerJob', 'Redis CPU µs per claimed job'),
      row('submit', 'evalshaUsPerJob', 'submit script µs per job (submitMany)'),
      row('complete', 'evalshaUsPerJob', 'complete script µs per job (completeMany)'),
    );
    details.push({ jobs, lanes: lanesCount, batch: BATCH, rounds });
  }
  const [jobs, lanesCount] = ctx.cfg.compatShapes[0];
  const rounds = { default: [], compat: [] };
  await ctx.alternate('compat, ceilings', {
    echomq: async (r) => {
      const order = r % 2 === 0 ? [false, true] : [true, false];
      for (const compat of order) rounds[compat ? 'compat' : 'default'].push(await ceilingMode(ctx, compat, jobs, lanesCount));
      return null;
    },
  });
  const pick = (mode, f) => rounds[mode].map((x) => x.cycle[f]);
  rows.push(ctx.row({
    scenario: 'compat', metric: `claim + complete script µs per job, every lane at a ceiling of 2 (${jobs.toLocaleString('en-US')} jobs over ${lanesCount.toLocaleString('en-US')} lanes), compat mode`,
    unit: 'µs', better: 'lower', digits: 2,
    echomq: pick('compat', 'evalshaUsPerJob'), bullmqNote: 'n/a', ratioTo: { values: pick('default', 'evalshaUsPerJob'), label: 'default mode' },
  }));
  details.push({ jobs, lanes: lanesCount, ceiling: 2, rounds });
  return { rows, details };
}

module.exports = { name: 'compat', run };
