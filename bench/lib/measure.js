'use strict';
// Measuring one phase: wall clock, the server's CPU (INFO cpu: used_cpu_sys + used_cpu_user of the
// redis-server process) and this process's CPU (process.cpuUsage), plus the EVALSHA time the
// server's own command statistics charge to the phase (the scripts' commands: FCALL, or EVALSHA
// where the scripts run so).
const os = require('os');
const { redisCpu, commandStats } = require('./server');

/** Runs fn and reports what it cost. CPU figures in µs. */
async function measure(admin, fn) {
  const c0 = await commandStats(admin);
  const r0 = await redisCpu(admin);
  const n0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const wallMs = performance.now() - t0;
  const n1 = process.cpuUsage(n0);
  const r1 = await redisCpu(admin);
  const c1 = await commandStats(admin);
  // ioredis sends a script's first call on a connection as EVAL, the later ones as EVALSHA; the
  // function library's calls are FCALL and FCALL_RO.
  const scripts = (c) => ['evalsha', 'eval', 'fcall', 'fcall_ro'].reduce((a, k) => ({ calls: a.calls + ((c[k] && c[k].calls) || 0), usec: a.usec + ((c[k] && c[k].usec) || 0) }), { calls: 0, usec: 0 });
  const ev0 = scripts(c0);
  const ev1 = scripts(c1);
  return {
    result,
    wallMs,
    redisCpuUs: (r1 - r0) * 1e6,
    nodeCpuUs: n1.user + n1.system,
    evalsha: { calls: ev1.calls - ev0.calls, usec: ev1.usec - ev0.usec },
  };
}

/** Per-job figures of a measured phase. */
function perJob(m, jobs) {
  return {
    jobsPerSec: jobs / (m.wallMs / 1000),
    redisUsPerJob: m.redisCpuUs / jobs,
    nodeUsPerJob: m.nodeCpuUs / jobs,
    evalshaUsPerJob: m.evalsha.usec / jobs,
    wallMs: m.wallMs,
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects when p has not settled after ms. */
function withTimeout(p, ms, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** A promise with its resolve/reject exposed. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

/** The small payload every scenario submits (same object on both sides). */
const payload = (n, lane) => ({ n, lane, text: 'hello from the bench' });

module.exports = { measure, perJob, sleep, withTimeout, deferred, loadavg, payload };
