import { ChildProcess, spawn } from 'child_process';
import { join } from 'path';
import IORedis from 'ioredis';
import { LanesService } from '../../lib/lanes.service';
import { lanesOn, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { buildLib, LibBuild } from './support/build-lib';
import { FaultConsumer } from './support/consumer';
import { report, waitFor } from './support/wait';

interface Held {
  pid: number;
  held: { id: string; attempt: number; leaseUntil: number }[];
}

/** Spawns the crash consumer and resolves with what it reports holding. */
function spawnHolder(lib: LibBuild, url: string, queue: string, count: number, leaseMs: number): Promise<{ child: ChildProcess; report: Held }> {
  const child = spawn(process.execPath, [join(__dirname, 'support', 'crash-consumer.js'), lib.dir, url, queue, String(count), String(leaseMs)],
    { env: lib.env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, report: JSON.parse(line) as Held });
    });
    child.once('exit', (code) => reject(new Error(`crash consumer exited (${code}) before reporting: ${err}`)));
  });
}

/**
 * A consumer process is SIGKILLed with jobs in flight. Nobody intervenes: the surviving consumer's
 * periodic reap returns the jobs after their lease, and they are served once more, with attempt 2.
 */
describe('faults: a consumer process SIGKILLed with jobs in flight', () => {
  let server: TestRedisServer;
  let client: IORedis;
  let lib: LibBuild;
  const extra: IORedis[] = [];

  beforeAll(async () => {
    lib = buildLib();
    server = await TestRedisServer.start();
    client = server.client();
  });
  afterAll(async () => {
    await Promise.all([client, ...extra].map((c) => c.quit()));
    await server.stop();
    lib.remove();
  });

  it('its jobs come back after the lease and are served once more with attempt 2', async () => {
    const q = testQueue();
    const total = 400;
    const inFlight = 40;
    const leaseMs = 1_000;
    const admin: LanesService = lanesOn(client);
    const ids = await admin.submitMany(q, Array.from({ length: total }, (_, i) => ({ group: `tenant-${i % 8}`, payload: { i } })));

    const { child, report: holder } = await spawnHolder(lib, server.url, q, inFlight, leaseMs);
    expect(holder.held).toHaveLength(inFlight);
    expect(holder.held.every((h) => h.attempt === 1)).toBe(true);
    const gactive = async () => Object.values(await client.hgetall(admin.keysOf(q).gactive)).reduce((n, v) => n + Number(v), 0);
    expect(await gactive()).toBe(inFlight);

    const served = new Map<string, number[]>();
    const survivor = () => {
      const c = server.client();
      extra.push(c);
      return c;
    };
    const consumer = new FaultConsumer({
      lanes: lanesOn(survivor()), blocking: survivor(), queue: q, leaseMs: 30_000, reapEveryMs: 100,
      handle: (job) => void served.set(job.id, [...(served.get(job.id) ?? []), job.attempt]),
    }).start();

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();
    const heldIds = new Set(holder.held.map((h) => h.id));
    await waitFor('the held jobs to be served again', () => [...heldIds].every((id) => served.has(id)), { timeoutMs: 20_000 });
    const backAfterMs = Date.now() - killedAt;
    await waitFor(`all ${total} jobs served`, () => served.size === total);
    await waitFor('the lanes to drain', async () => (await admin.lanes(q)).length === 0 && (await gactive()) === 0);
    await consumer.stop();

    const lost = ids.filter((id) => !served.has(id)).length;
    const twice = [...served.values()].filter((a) => a.length > 1).length;
    report(`consumer SIGKILLed holding ${inFlight} jobs (lease ${leaseMs} ms): jobs lost ${lost} of ${total}; `
      + `the ${inFlight} back and served with attempt 2 within ${backAfterMs} ms of the kill; served twice by the survivor ${twice}; reaped ${consumer.stats.reaped}`);
    expect(lost).toBe(0);
    expect(twice).toBe(0);
    for (const [id, attempts] of served) expect(attempts).toEqual([heldIds.has(id) ? 2 : 1]);
    expect(consumer.stats.reaped).toBe(inFlight);
    expect(await admin.stats(q)).toMatchObject({ totals: { submitted: total, completed: total, retried: 0, dead: 0, reaped: inFlight }, pending: 0, active: 0, paused: false });
  });
});
