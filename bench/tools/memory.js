#!/usr/bin/env node
'use strict';
// Where a pending job's bytes go, on a private redis-server: used_memory and used_memory_dataset
// per job, MEMORY USAGE and OBJECT ENCODING of each key type (a job row, a lane at small and large
// depths, the ring and its set), and what the server adds per key beyond MEMORY USAGE (its main
// dictionary's buckets). The same for BullMQ 6.7's waiting jobs. Not part of `npm run bench`
// (which reports bytes per job only); about 20 s.
//
//   npm run build && node bench/tools/memory.js [jobs=100000] [payloadBytes]
//
// payloadBytes, when given, pads the bench's payload object to about that many bytes of JSON.
const { BenchServer, infoOf } = require('../lib/server');
const { echoLanes, bullQueue } = require('../lib/engines');
const { sleep } = require('../lib/measure');

const N = Number(process.argv[2] || 100000);
const PAD = process.argv[3] ? Number(process.argv[3]) : null;

async function mem(admin) {
  await sleep(100);
  const m = await infoOf(admin, 'memory');
  const k = await infoOf(admin, 'keyspace');
  const keys = k.db0 ? Number(/keys=(\d+)/.exec(k.db0)[1]) : 0;
  return { used: m.used_memory - (m.mem_clients_normal || 0), dataset: m.used_memory_dataset, overhead: m.used_memory_overhead - (m.mem_clients_normal || 0), keys };
}

const per = (a, b, n) => ({
  used: (b.used - a.used) / n,
  dataset: (b.dataset - a.dataset) / n,
  overhead: (b.overhead - a.overhead) / n,
  keys: (b.keys - a.keys) / n,
});

async function describe(admin, key) {
  const [type, enc, usage, len] = await Promise.all([
    admin.type(key), admin.object('ENCODING', key), admin.memory('USAGE', key, 'SAMPLES', '0'),
    admin.type(key).then((t) => (t === 'zset' ? admin.zcard(key) : t === 'hash' ? admin.hlen(key) : t === 'list' ? admin.llen(key) : t === 'set' ? admin.scard(key) : 1)),
  ]);
  return { key, type, encoding: enc, bytes: usage, length: len };
}

function padPayload(fill) {
  if (!PAD) return fill;
  // Pads the payload's text so its JSON is about PAD bytes.
  const measure = require('../lib/measure');
  const base = measure.payload;
  measure.payload = (n, lane) => {
    const p = base(n, lane);
    const extra = Math.max(0, PAD - JSON.stringify(p).length);
    return { ...p, text: p.text + '.'.repeat(extra) };
  };
  return fill;
}

async function main() {
  padPayload();
  const { echoFill: fillE, bullFill: fillB } = require('../lib/fill');
  const server = await BenchServer.start();
  const admin = server.client();
  const client = server.client();
  const out = { jobs: N, payloadBytes: JSON.stringify(require('../lib/measure').payload(12345, 'lane-123')).length };
  try {
    await admin.config('SET', 'save', '');
    const cfg = await admin.config('GET', '*max-listpack*');
    out.config = Object.fromEntries(cfg.reduce((a, x, i) => (i % 2 ? a : a.concat([[x, cfg[i + 1]]])), []));
    const lanes = echoLanes(client);
    const k = lanes.keysOf('m');

    for (const [label, laneOf] of [['1,000 lanes', (i) => `lane-${i % 1000}`], ['one lane', () => 'lane-0']]) {
      await admin.flushdb();
      const a = await mem(admin);
      const ids = await fillE(lanes, 'm', N, laneOf, { batch: 1000, keepIds: true });
      const b = await mem(admin);
      const row = await describe(admin, `${k.base || 'emq:{m}:'}job:${ids[N >> 1]}`);
      const lane = await describe(admin, `emq:{m}:g:${laneOf(N >> 1)}:pending`);
      const fields = await admin.hgetall(row.key);
      out[`echomq, ${label}`] = { perJob: per(a, b, N), row, rowFields: fields, lane, ring: await describe(admin, k.ring) };
    }
    // A lane at a small depth (listpack) and past the listpack threshold (skiplist), measured alone.
    for (const depth of [100, 128, 129, 1000]) {
      await admin.flushdb();
      await fillE(lanes, 'm', depth, () => 'solo', { batch: 1000 });
      out[`lane of ${depth}`] = await describe(admin, 'emq:{m}:g:solo:pending');
      out[`lane of ${depth}`].bytesPerJob = out[`lane of ${depth}`].bytes / depth;
    }
    // The server's own cost per key beyond MEMORY USAGE: N empty-ish string keys, used_memory per key
    // against MEMORY USAGE of one (the difference is the main dictionary's bucket array).
    await admin.flushdb();
    {
      const a = await mem(admin);
      for (let i = 0; i < N; i += 1000) {
        const p = admin.pipeline();
        for (let j = i; j < Math.min(N, i + 1000); j++) p.set(`emq:{m}:job:JOB${String(j).padStart(11, '0')}`, '1');
        await p.exec();
      }
      const b = await mem(admin);
      const one = await admin.memory('USAGE', 'emq:{m}:job:JOB00000000001');
      out.perKey = { usedPerKey: (b.used - a.used) / N, memoryUsageOfOne: one, overheadPerKey: (b.overhead - a.overhead) / N };
    }
    await admin.flushdb();
    const queue = bullQueue(server, 'm', { defaultJobOptions: {} });
    await queue.waitUntilReady();
    const a = await mem(admin);
    const bids = await fillB(queue, N, (i) => `lane-${i % 1000}`, { batch: 1000, keepIds: true });
    const b = await mem(admin);
    const row = await describe(admin, `bull:m:${bids[N >> 1]}`);
    out.bullmq = { perJob: per(a, b, N), row, rowFields: await admin.hgetall(row.key), wait: await describe(admin, 'bull:m:wait') };
    await queue.close();
  } finally {
    await client.quit();
    await admin.quit();
    await server.stop();
  }
  console.log(JSON.stringify(out, null, 2));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
