import IORedis from 'ioredis';
import { LanesService } from '../../lib/lanes.service';
import { lanesOn, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { FaultConsumer } from './support/consumer';
import { pause, report, waitFor } from './support/wait';

/** A server for the describe block that calls it, and `connect()` for connections it quits afterwards. */
function serverPerFile(): () => IORedis {
  let server: TestRedisServer;
  const clients: IORedis[] = [];
  beforeAll(async () => {
    server = await TestRedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await server.stop();
  });
  return () => {
    const c = server.client();
    clients.push(c);
    return c;
  };
}

/**
 * Two claimers on their own connections race for one lane whose ceiling is 3 (one with claimMany,
 * one with wclaim, each asking for more than the ceiling at once), while a third connection samples
 * the lane's active count without pause: the ceiling holds at every sample and in the handlers.
 */
describe('faults: two claimers racing on one lane with a ceiling of 3', () => {
  const connect = serverPerFile();

  it('ceiling violations: 0 (sampled gactive and the handlers own in-flight count)', async () => {
    const q = testQueue();
    const ceiling = 3;
    const total = 1_500;
    const admin = lanesOn(connect());
    await admin.limit(q, 'hot', ceiling);
    await admin.weight(q, 'hot', 5);
    const ids = await admin.submitMany(q, Array.from({ length: total }, (_, i) => ({ group: 'hot', payload: { i } })));

    let inFlight = 0;
    let maxInFlight = 0;
    let handlerViolations = 0;
    const done = new Map<string, number>();
    const handle = async (job: { id: string }) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (inFlight > ceiling) handlerViolations += 1;
      await pause(Math.random() < 0.5 ? 0 : 2);
      // NOTE: counted out before the completion is sent: from then on the server may hand the slot on.
      inFlight -= 1;
      done.set(job.id, (done.get(job.id) ?? 0) + 1);
    };
    const consumers = [
      new FaultConsumer({ lanes: lanesOn(connect()), blocking: connect(), queue: q, handle, batch: 5, leaseMs: 60_000 }),
      new FaultConsumer({ lanes: lanesOn(connect()), blocking: connect(), queue: q, handle, batch: 5, leaseMs: 60_000, weighted: true }),
    ];

    const sampler = connect();
    const gactiveKey = admin.keysOf(q).gactive;
    let samples = 0;
    let maxSampled = 0;
    let sampleViolations = 0;
    let sampling = true;
    const sampling$ = (async () => {
      while (sampling) {
        const active = Number((await sampler.hget(gactiveKey, 'hot')) ?? 0);
        samples += 1;
        maxSampled = Math.max(maxSampled, active);
        if (active > ceiling) sampleViolations += 1;
      }
    })();

    consumers.forEach((c) => c.start());
    await waitFor(`all ${total} jobs done`, () => done.size === total, { timeoutMs: 60_000 });
    await Promise.all(consumers.map((c) => c.stop()));
    sampling = false;
    await sampling$;

    const violations = sampleViolations + handlerViolations;
    report(`ceiling ${ceiling}, 2 claimers (claimMany x5, wclaim max 5, weight 5), ${total} jobs: `
      + `violations ${violations} (gactive samples ${samples}, max ${maxSampled}; handler max in flight ${maxInFlight}); `
      + `served by claimMany ${consumers[0].stats.completed}, by wclaim ${consumers[1].stats.completed}`);
    expect(violations).toBe(0);
    expect(maxSampled).toBe(ceiling);
    expect(samples).toBeGreaterThan(100);
    expect([...done.values()].every((n) => n === 1)).toBe(true);
    expect(ids.every((id) => done.has(id))).toBe(true);
    expect(consumers.every((c) => c.stats.errors === 0 && c.stats.refused === 0)).toBe(true);
    expect(await admin.lane(q, 'hot')).toMatchObject({ pending: 0, active: 0, limit: ceiling });
  });
});

/**
 * Five apps (each its own LanesService on its own connection) fire 30 claims at once (claim,
 * claimMany and wclaim mixed) at a tenant whose four lanes hold 200 jobs under a tenantLimit of 3,
 * beside a queue-wide queueLimit of 5 over that tenant and a lane of no tenant; held jobs are
 * completed between rounds. The ceilings hold after every round and at every server-side sample.
 */
describe('faults: 30 concurrent claims from 5 apps against tenantLimit and queueLimit', () => {
  const connect = serverPerFile();

  it('tenantLimit 3 and queueLimit 5 are never exceeded, and every job is served once', async () => {
    const q = testQueue();
    const admin = lanesOn(connect());
    await admin.tenantLimit(q, 'A', 3);
    await admin.queueLimit(q, 5);
    for (let l = 0; l < 4; l++) await admin.weight(q, `a${l}`, 4);
    const items = [];
    for (let i = 0; i < 50; i++) for (let l = 0; l < 4; l++) items.push({ group: `a${l}`, payload: { i }, opts: { tenant: 'A' } });
    for (let i = 0; i < 100; i++) items.push({ group: 'free', payload: { i } });
    const ids = await admin.submitMany(q, items);
    const apps = Array.from({ length: 5 }, () => lanesOn(connect()));
    const sampler = connect();
    const k = admin.keysOf(q);
    let sampling = true;
    let samples = 0;
    let sampleViolations = 0;
    const sampling$ = (async () => {
      while (sampling) {
        const [tenantActive, queueActive] = await Promise.all([sampler.hget(k.tenantInfo('A'), 'active'), sampler.zcard(k.active)]);
        samples += 1;
        if (Number(tenantActive ?? 0) > 3 || queueActive > 5) sampleViolations += 1;
      }
    })();
    const done = new Map<string, number>();
    let roundViolations = 0;
    let maxTenant = 0;
    for (let round = 0; round < 500 && done.size < ids.length; round++) {
      const calls = apps.flatMap((app) => [
        app.claim(q).then((j) => (j ? [j] : [])),
        app.claim(q).then((j) => (j ? [j] : [])),
        app.claimMany(q, 3).then((r) => r.jobs),
        app.claimMany(q, 2).then((r) => r.jobs),
        app.wclaim(q),
        app.wclaim(q, { max: 2 }),
      ]);
      const held = (await Promise.all(calls)).flat();
      const ofA = held.filter((j) => j.group !== 'free').length;
      maxTenant = Math.max(maxTenant, ofA);
      if (ofA > 3 || held.length > 5) roundViolations += 1;
      for (const j of held) {
        expect(await admin.complete(q, j.id, j.attempt)).toBe(true);
        done.set(j.id, (done.get(j.id) ?? 0) + 1);
      }
    }
    sampling = false;
    await sampling$;
    report(`tenantLimit 3, queueLimit 5, 5 apps x 6 concurrent claims a round: violations ${roundViolations + sampleViolations} `
      + `(samples ${samples}); most of A held at once ${maxTenant}`);
    expect(roundViolations + sampleViolations).toBe(0);
    expect(maxTenant).toBe(3);
    expect(done.size).toBe(ids.length);
    expect([...done.values()].every((n) => n === 1)).toBe(true);
    expect(await admin.tenant(q, 'A')).toMatchObject({ active: 0, pending: 0, limit: 3 });
  });
});
