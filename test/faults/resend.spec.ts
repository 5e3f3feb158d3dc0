import IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import { LanesService } from '../../lib/lanes.service';
import { closeRedisClient, createRedisClient } from '../../lib/redis/redis-connection';
import { AdmitArgs, AdmitResult, LaneScripts } from '../../lib/scripts/lane-scripts';
import { loadScripts } from '../../lib/scripts/lua-loader';
import { lanesOn, snapshot, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';
import { ReplyCutter } from './support/reply-cutter';
import { report, waitFor } from './support/wait';

/**
 * ioredis re-sends the commands that were in flight when a connection dropped. When the server had
 * already run one, it runs twice: these tests run each script twice with identical arguments, and
 * then lose a real reply on the wire, and check that no job is duplicated and no counter is off.
 */
describe('faults: a command re-sent after a reconnect', () => {
  let server: TestRedisServer;
  let client: IORedis;
  let lanes: LanesService;
  let scripts: LaneScripts;

  beforeAll(async () => {
    server = await TestRedisServer.start();
    client = server.client();
    lanes = lanesOn(client);
    scripts = new LaneScripts(client);
  });
  afterAll(async () => {
    await client.quit();
    await server.stop();
  });

  const jobArgs = (over: Partial<AdmitArgs> = {}): AdmitArgs => ({
    id: mintJobId(), group: 'g', payload: '{"n":1}', dedupKey: '', delayMs: 0, maxAttempts: 0, own: false, ...over,
  });

  it.each([
    ['a minted id', {}],
    ['a caller-given id', { own: true }],
    ['a dedup key', { dedupKey: 'order-7' }],
    ['a delayed job', { delayMs: 60_000 }],
  ])('submit run twice with %s admits one job', async (_name, over) => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    const job = jobArgs(over);
    expect(await scripts.submit(k, { ...job })).toEqual({ status: 'ok', id: job.id });
    const after1 = await snapshot(client, q);
    expect(await scripts.submit(k, { ...job })).toEqual({ status: 'dup', id: job.id });
    expect(await snapshot(client, q)).toEqual(after1);
    expect(Object.keys(after1).filter((key) => key.includes(':job:'))).toEqual([k.job(job.id)]);
  });

  it('submitMany run twice admits each job once', async () => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    const jobs = Array.from({ length: 20 }, (_, i) => jobArgs({ group: `g${i % 4}`, payload: JSON.stringify({ i }) }));
    const first = await scripts.submitMany(k, jobs.map((j) => ({ ...j })));
    expect((first as AdmitResult[]).every((r) => r.status === 'ok')).toBe(true);
    const after1 = await snapshot(client, q);
    const second = await scripts.submitMany(k, jobs.map((j) => ({ ...j })));
    expect(second).toEqual(jobs.map((j) => ({ status: 'dup', id: j.id })));
    expect(await snapshot(client, q)).toEqual(after1);
  });

  it('a minted id taken by a different job is still a collision (the job is minted again, not dropped)', async () => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    const job = jobArgs();
    await scripts.submit(k, { ...job });
    expect(await scripts.submit(k, { ...job, payload: '{"n":2}' })).toEqual({ status: 'collide', id: job.id });
    expect(await scripts.submit(k, { ...job, group: 'other' })).toEqual({ status: 'collide', id: job.id });
  });

  it('complete run twice: the second returns false, counters exact', async () => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    await lanes.submit(q, 'g', { n: 1 });
    await lanes.submit(q, 'g', { n: 2 });
    await lanes.limit(q, 'g', 1);
    const job = (await lanes.claim(q))!;
    expect(await lanes.lane(q, 'g')).toMatchObject({ pending: 1, active: 1, inRing: false });
    expect(await scripts.complete(k, job.id, job.attempt, "", 0)).toBe(true);
    const after1 = await snapshot(client, q);
    expect(await scripts.complete(k, job.id, job.attempt, "", 0)).toBe(false);
    expect(await snapshot(client, q)).toEqual(after1);
    expect(await lanes.stats(q)).toMatchObject({ totals: { completed: 1, retried: 0, dead: 0 }, paused: false });
    expect(await lanes.lane(q, 'g')).toMatchObject({ pending: 1, active: 0, inRing: true });
    expect(await client.hget(k.gactive, 'g')).toBeNull();
    expect(await client.zcard(k.active)).toBe(0);
  });

  it('fail run twice: the second is stale, retried counted once', async () => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    await lanes.submit(q, 'g', { n: 1 });
    const job = (await lanes.claim(q))!;
    const policy = { maxAttempts: 3, delayMs: 0, factor: 2, maxDelayMs: 0 };
    expect(await scripts.fail(k, job.id, job.attempt, 'boom', policy)).toBe('retry');
    const after1 = await snapshot(client, q);
    expect(await scripts.fail(k, job.id, job.attempt, 'boom', policy)).toBe('stale');
    expect(await snapshot(client, q)).toEqual(after1);
    expect(await lanes.stats(q)).toMatchObject({ totals: { completed: 0, retried: 1, dead: 0 }, paused: false });
    expect(await lanes.lane(q, 'g')).toMatchObject({ pending: 1, active: 0 });
  });

  it('claim run twice serves two different jobs, each once (a lost reply is a lease that expires)', async () => {
    const q = testQueue();
    const k = lanes.keysOf(q);
    await lanes.submitMany(q, [{ group: 'g', payload: 1 }, { group: 'g', payload: 2 }]);
    const a = await scripts.claim(k, 60_000, 1, 10);
    const b = await scripts.claim(k, 60_000, 1, 10);
    expect(a.jobs[0].id).not.toBe(b.jobs[0].id);
    expect(await lanes.lane(q, 'g')).toMatchObject({ pending: 0, active: 2 });
  });

  describe('with the reply lost on the wire', () => {
    let cutter: ReplyCutter;
    let wire: IORedis;
    let wired: LanesService;

    beforeAll(async () => {
      cutter = await ReplyCutter.start(server.port);
      wire = createRedisClient(`redis://127.0.0.1:${cutter.port}`, 'faults-resend') as IORedis;
      wired = lanesOn(wire);
      await waitFor('the proxied client to be ready', () => wire.status === 'ready');
      // NOTE: every script in the server's cache first, and the connection's path chosen (its probe
      // answered, the library loaded), so the cut reply is the script's own, not a NOSCRIPT or a probe's.
      for (const s of loadScripts()) await client.script('LOAD', s.lua);
      await new LaneScripts(wire).path();
    });
    afterAll(async () => {
      await closeRedisClient(wire);
      await cutter.stop();
    });

    it('LanesService.submit (minted id) whose reply is lost admits one job', async () => {
      const q = testQueue();
      const k = lanes.keysOf(q);
      cutter.arm();
      const id = await wired.submit(q, 'g', { n: 1 });
      expect(cutter.cuts).toBe(1);
      const jobKeys = Object.keys(await snapshot(client, q)).filter((key) => key.includes(':job:'));
      expect(jobKeys).toEqual([k.job(id)]);
      expect(await lanes.lane(q, 'g')).toMatchObject({ pending: 1, active: 0, inRing: true });
    });

    it('LanesService.submitMany whose reply is lost admits each job once', async () => {
      const q = testQueue();
      cutter.arm();
      const ids = await wired.submitMany(q, Array.from({ length: 50 }, (_, i) => ({ group: `g${i % 5}`, payload: { i } })));
      const jobKeys = Object.keys(await snapshot(client, q)).filter((key) => key.includes(':job:'));
      expect(jobKeys.sort()).toEqual(ids.map((id) => lanes.keysOf(q).job(id)).sort());
      expect((await lanes.lanes(q)).reduce((n, l) => n + l.pending, 0)).toBe(50);
    });

    it('LanesService.complete whose reply is lost completes once and counts once', async () => {
      const q = testQueue();
      const k = lanes.keysOf(q);
      await lanes.submit(q, 'g', { n: 1 });
      const job = (await lanes.claim(q))!;
      const cutsBefore = cutter.cuts;
      cutter.arm();
      // NOTE: the re-sent complete finds the row gone and says false, though the first run completed it.
      const accepted = await wired.complete(q, job.id, job.attempt);
      expect(cutter.cuts).toBe(cutsBefore + 1);
      expect(await lanes.stats(q)).toMatchObject({ totals: { completed: 1, retried: 0, dead: 0 }, paused: false });
      expect(await client.exists(k.job(job.id))).toBe(0);
      expect(await lanes.lanes(q)).toEqual([]);
      report(`re-sent complete after a lost reply: completed once, counted once, the re-send answered ${accepted}`);
    });
  });
});
