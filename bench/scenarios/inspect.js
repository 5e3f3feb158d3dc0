'use strict';
// inspect: what the reads for people and tools cost the server on a large queue — scanLanes (a
// whole pass), topLanes, stats, shares, oldestLanes and position on a queue of 100,000 lanes (two jobs each, a few lanes
// deeper) — alone, and the longest server script while they run beside a claim/complete load.
//
// Alone: each read's own script time, from INFO commandstats (usec of EVAL + EVALSHA) bracketed
// around exactly one call, median over the samples. Under load: SLOWLOG with a 500 µs threshold
// (reset before each round), the longest entry of the round; a round with no entry reports the
// threshold as an upper bound. No BullMQ column: BullMQ has no lanes to list.
const { echoLanes } = require('../lib/engines');
const { echoFill } = require('../lib/fill');
const { parseInfo } = require('../lib/server');
const { median } = require('../lib/stats');
const { makeRow } = require('../lib/report');
const { createHash } = require('crypto');
const { loadScripts } = require('../../dist/scripts/lua-loader');

/** sha1 -> script name, to tell the reads' scripts from the load's in SLOWLOG. */
const SCRIPT_OF_SHA = new Map(loadScripts().map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.name]));
const READS = new Set(['laneRows', 'readStats', 'locateJob', 'laneShares', 'oldestLanes', 'bandDepths']);

const SLOW_US = 500;
const SLOWLOG_ROOM = 100_000;
const queueName = 'inspect';

async function scriptCounters(admin) {
  const info = parseInfo(await admin.call('INFO', 'commandstats'));
  let calls = 0;
  let usec = 0;
  for (const k of ['cmdstat_evalsha', 'cmdstat_eval', 'cmdstat_fcall', 'cmdstat_fcall_ro']) {
    const m = /calls=(\d+),usec=(\d+)/.exec(String(info[k] || ''));
    if (m) {
      calls += Number(m[1]);
      usec += Number(m[2]);
    }
  }
  return { calls, usec };
}

/** Script µs of one call of fn (which runs scripts and nothing else meanwhile); per script when it runs several. */
async function scriptUs(admin, fn) {
  const a = await scriptCounters(admin);
  await fn();
  const b = await scriptCounters(admin);
  return { us: b.usec - a.usec, scripts: b.calls - a.calls };
}

async function run(ctx) {
  const { server, admin, cfg } = ctx;
  const L = cfg.inspectLanes;
  const fmt = (n) => n.toLocaleString('en-US');
  await admin.flushdb();
  const client = server.client({ enableAutoPipelining: true });
  const readerClient = server.client();
  const lanes = echoLanes(client);
  const reader = echoLanes(readerClient);
  const alone = { stats: [], top10: [], top1000: [], scanPage: [], position: [], positionExact: [], shares1000: [], oldest1000: [] };
  const longest = [];
  const overLimit = [];
  const loadLongest = [];
  try {
    ctx.log(`  inspect: filling ${fmt(L)} lanes (2 jobs each, 100 lanes 50 deep)`);
    await echoFill(lanes, queueName, 2 * L, (i) => `lane-${i % L}`, { batch: 1000, inFlight: 4 });
    await echoFill(lanes, queueName, 100 * 48, (i) => `lane-${i % 100}`, { batch: 1000, inFlight: 4 });
    const k = lanes.keysOf(queueName);
    const sample = [];
    for (let i = 0; i < 50; i++) sample.push(...(await client.zrange(k.lane(`lane-${(i * 7919) % L}`), 0, -1)));
    // A small queue for position's exact path (ring of 1,000 lanes).
    await echoFill(lanes, 'inspect-small', 2_000, (i) => `s-${i % 1_000}`, { batch: 1000 });
    const small = await client.zrange(lanes.keysOf('inspect-small').lane('s-500'), 0, -1);
    await reader.stats(queueName); // first calls load the scripts (EVAL) outside the samples
    await reader.topLanes(queueName, 10);
    await reader.scanLanes(queueName, { count: 10 });
    await reader.position(queueName, sample[0]);

    for (let r = 0; r < ctx.rounds; r++) {
      ctx.log(`  inspect: round ${r + 1}/${ctx.rounds}: each read alone`);
      for (let i = 0; i < 20; i++) {
        alone.stats.push((await scriptUs(admin, () => reader.stats(queueName))).us);
        alone.top10.push((await scriptUs(admin, () => reader.topLanes(queueName, 10))).us);
        alone.top1000.push((await scriptUs(admin, () => reader.topLanes(queueName, 1_000))).us);
        alone.position.push((await scriptUs(admin, () => reader.position(queueName, sample[(i * 13) % sample.length]))).us);
        alone.positionExact.push((await scriptUs(admin, () => reader.position('inspect-small', small[1]))).us);
        const shares = await scriptUs(admin, () => reader.shares(queueName, { count: 1_000 }));
        alone.shares1000.push(shares.us);
        const oldest = await scriptUs(admin, () => reader.oldestLanes(queueName, 1_000));
        alone.oldest1000.push(oldest.us);
      }
      let cursor;
      do {
        let page;
        const m = await scriptUs(admin, async () => {
          page = await reader.scanLanes(queueName, { cursor, count: 1_000 });
        });
        // NOTE: ZSCAN is a plain command, not a script: only the rows scripts (100 lanes each) count here.
        if (m.scripts > 0) alone.scanPage.push(m.us);
        cursor = page.cursor ?? undefined;
      } while (cursor);

      ctx.log(`  inspect: round ${r + 1}/${ctx.rounds}: the same reads beside a claim/complete load`);
      await admin.call('CONFIG', 'SET', 'slowlog-log-slower-than', String(SLOW_US));
      // NOTE: room for every slow entry of a round (a full log would drop the oldest, the longest among them).
      await admin.call('CONFIG', 'SET', 'slowlog-max-len', String(SLOWLOG_ROOM));
      await admin.call('SLOWLOG', 'RESET');
      let stop = false;
      const load = Promise.all(Array.from({ length: 16 }, async () => {
        while (!stop) {
          const job = await lanes.claim(queueName);
          if (!job) return;
          await lanes.complete(queueName, job.id, job.attempt);
          await lanes.submit(queueName, job.group, { again: true });
        }
      }));
      const reads = (async () => {
        let c;
        do {
          const page = await reader.scanLanes(queueName, { cursor: c, count: 1_000 });
          c = page.cursor ?? undefined;
          await reader.stats(queueName);
          await reader.topLanes(queueName, 1_000);
          await reader.shares(queueName, { count: 1_000 });
          await reader.oldestLanes(queueName, 1_000);
          await reader.position(queueName, sample[Math.floor(Math.random() * sample.length)]);
        } while (c);
      })();
      await reads;
      stop = true;
      await load;
      const logged = await admin.call('SLOWLOG', 'GET', String(SLOWLOG_ROOM));
      if (logged.length >= SLOWLOG_ROOM) throw new Error(`SLOWLOG filled its ${SLOWLOG_ROOM} entries: the longest may be lost`);
      // NOTE: the bench's own admin commands (the SLOWLOG RESET of a full log, CONFIG) are not the library's.
      const entries = logged.filter((e) => !['slowlog', 'config'].includes(String(e[3][0]).toLowerCase()));
      let maxUs = 0;
      let what = '';
      const over5ms = entries.filter((e) => Number(e[2]) > 5000).length;
      overLimit.push(over5ms);
      // NOTE: the load's own scripts (claim, complete, submit: tens of µs each) as a control: on a
      // shared machine the server is sometimes descheduled mid-command, which SLOWLOG counts too.
      let loadMaxUs = 0;
      for (const e of entries) {
        // EVALSHA names a script by its sha, FCALL by its function (echomq_<hash>_<script>).
        const name = SCRIPT_OF_SHA.get(String(e[3][1] || '')) ?? /^echomq_[0-9a-f]{16}_([A-Za-z]+)$/.exec(String(e[3][1] || ''))?.[1];
        if (name && !READS.has(name)) loadMaxUs = Math.max(loadMaxUs, Number(e[2]));
      }
      loadLongest.push(loadMaxUs / 1000);
      for (const e of entries) {
        if (Number(e[2]) > maxUs) {
          maxUs = Number(e[2]);
          what = e[3].slice(0, 2).map(String).join(' ').slice(0, 60);
          // NOTE: a script of several kinds (laneShares) is named with its kind, the argument after the base.
          const keys = Number(e[3][2]);
          if (/laneShares$/.test(String(e[3][1] || '')) && Number.isInteger(keys)) what += ` ${String(e[3][3 + keys + 1] ?? '')}`;
        }
      }
      longest.push((maxUs || SLOW_US) / 1000);
      ctx.log(`  inspect: round ${r + 1}: ${entries.length} commands over ${SLOW_US} µs, longest ${(maxUs / 1000).toFixed(2)} ms (${what}), ${over5ms} over 5 ms; the load's own scripts' longest ${(loadMaxUs / 1000).toFixed(2)} ms`);
      await admin.call('CONFIG', 'SET', 'slowlog-log-slower-than', '10000');
    }
  } finally {
    await client.quit();
    await readerClient.quit();
  }
  await admin.flushdb();
  const lanesText = fmt(L);
  const row = (metric, values, extra = {}) => makeRow({ scenario: 'inspect', metric, unit: 'µs', better: 'lower', digits: 0, echomq: values, bullmqNote: 'no lanes', ...extra });
  return {
    rows: [
      row(`longest server script while scanLanes, topLanes, stats, shares, oldestLanes and position run under load, ${lanesText} lanes`, longest,
        { unit: 'ms', digits: 2, target: { text: '≤ 5 ms', check: (r) => r.echomq.max <= 5 } }),
      row(`control: longest claim/complete/submit script in the same windows (their usual cost is tens of µs), ${lanesText} lanes`, loadLongest,
        { unit: 'ms', digits: 2 }),
      row(`stats(): script µs per call, ${lanesText} lanes`, [median(alone.stats)]),
      row(`topLanes(10): script µs per call, ${lanesText} lanes`, [median(alone.top10)]),
      row(`topLanes(1,000): script µs per call (up to 50 bandDepths pages of 200 lanes, then 20 row scripts), ${lanesText} lanes`, [median(alone.top1000)]),
      row(`scanLanes page of ~1,000: script µs per page (20 row scripts; ZSCAN is a plain command), ${lanesText} lanes`, [median(alone.scanPage)]),
      row(`shares({ count: 1,000 }): script µs per call (a candidates, a sums and 250-lane rows scripts), ${lanesText} lanes`, [median(alone.shares1000)]),
      row(`oldestLanes(1,000): script µs per call (scripts of at most 100 heads), ${lanesText} lanes`, [median(alone.oldest1000)]),
      row(`position(): script µs per call, ring of ${lanesText} lanes (bound)`, [median(alone.position)]),
      row('position(): script µs per call, ring of 1,000 lanes (exact)', [median(alone.positionExact)]),
    ],
    details: { alone, longestMs: longest, scriptsOver5ms: overLimit },
  };
}

module.exports = { name: 'inspect', run };
