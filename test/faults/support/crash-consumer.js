'use strict';
/*
 * A consumer process for the crash test: claims jobs through the library's LanesService, reports
 * what it holds on stdout as one JSON line, then keeps "working" on them until it is killed.
 * Usage: node crash-consumer.js <libBuildDir> <redisUrl> <queue> <count> <leaseMs>
 */
const { join } = require('path');

const [libDir, url, queue, count, leaseMs] = process.argv.slice(2);
const { LanesService } = require(join(libDir, 'lib', 'index.js'));
const { createRedisClient } = require(join(libDir, 'lib', 'redis', 'redis-connection.js'));
const { resolveEchoMqOptions } = require(join(libDir, 'lib', 'echomq.options.js'));

async function main() {
  const client = createRedisClient(url, 'crash-consumer');
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const lanes = new LanesService(client, resolveEchoMqOptions({ connection: url, logger: quiet }));
  await lanes.onModuleInit();
  const held = [];
  while (held.length < Number(count)) {
    const { jobs } = await lanes.claimMany(queue, Number(count) - held.length, { leaseMs: Number(leaseMs) });
    if (jobs.length === 0) break;
    for (const job of jobs) held.push({ id: job.id, attempt: job.attempt, leaseUntil: job.leaseUntil });
  }
  process.stdout.write(JSON.stringify({ pid: process.pid, held }) + '\n');
  // NOTE: the handlers never finish; the parent SIGKILLs this process with the jobs in flight.
  setInterval(() => undefined, 1_000);
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
