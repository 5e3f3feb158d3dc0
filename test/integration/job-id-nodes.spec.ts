import { JobIdNodeLease } from '../../lib/ids/node-lease';
import { decodeJobId, jobIdNode, mintJobId } from '../../lib/ids/job-id';
import { nodeLeaseKey } from '../../lib/redis/lane-keys';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { engineFixture, serverTimeMs } from '../support/engine';
import { bootApp, CapturingLogger, until } from '../support/nest';

const KEY = nodeLeaseKey('emq');

/** The job-id node leases: no two live processes are handed the same node number. */
describe('job-id node numbers held as leases', () => {
  const engine = engineFixture();
  let scripts: LaneScripts;
  const leases: JobIdNodeLease[] = [];
  /** A process's lease (its own token), given back after the test. */
  const lease = (leaseMs = 60_000, logger = new CapturingLogger()) => {
    const l = new JobIdNodeLease(scripts, KEY, logger, leaseMs);
    leases.push(l);
    return l;
  };
  const holder = async (n: number) => ((await engine.client.hget(KEY, String(n))) ?? '').split(' ');

  beforeAll(() => {
    scripts = new LaneScripts(engine.client);
  });
  afterEach(async () => {
    await Promise.all(leases.splice(0).map((l) => l.release()));
    await engine.client.del(KEY);
  });

  it('hands two processes different numbers, each held under its own token until given back', async () => {
    const [a, b] = [lease(), lease()];
    await a.take();
    await b.take();
    expect(a.node).toBeDefined();
    expect(b.node).toBeDefined();
    expect(a.node).not.toBe(b.node);
    expect(jobIdNode()).toBe(b.node);
    const now = await serverTimeMs(engine.client);
    const [tokenA, endsA] = await holder(a.node!);
    const [tokenB] = await holder(b.node!);
    expect(tokenA).not.toBe(tokenB);
    expect(Number(endsA)).toBeGreaterThan(now + 50_000);
    await a.release();
    expect(await engine.client.hexists(KEY, String(b.node))).toBe(1);
    expect(await engine.client.hlen(KEY)).toBe(2); // b's number and `next`
  });

  it('never hands out a held number, however many processes started since; a lapsed one is free again', async () => {
    await engine.client.hset(KEY, 'next', '5');
    const first = lease();
    await first.take();
    expect(first.node).toBe(5);
    // 1,024 starts later the search begins at 5 again: 5 is held, so the next free one.
    await engine.client.hset(KEY, 'next', '1029');
    const later = lease();
    await later.take();
    expect(later.node).toBe(6);
    // A holder that stopped renewing: its number is free once its lease has ended.
    await engine.client.hset(KEY, '7', `deadbeef ${(await serverTimeMs(engine.client)) - 1}`, 'next', '7');
    const next = lease();
    await next.take();
    expect(next.node).toBe(7);
    expect((await holder(7))[0]).not.toBe('deadbeef');
  });

  it('renews its number, and one taken over while it stalled is given up for a free one', async () => {
    const logger = new CapturingLogger();
    const l = lease(300, logger);
    await l.take();
    const n = l.node!;
    await new Promise((r) => setTimeout(r, 600));
    expect(l.node).toBe(n);
    expect(Number((await holder(n))[1])).toBeGreaterThan(await serverTimeMs(engine.client));
    // Another process got it meanwhile (as after a stall longer than the lease).
    await engine.client.hset(KEY, String(n), `other ${(await serverTimeMs(engine.client)) + 60_000}`);
    await until(() => l.node !== undefined && l.node !== n, 2_000, 'a new number');
    expect(jobIdNode()).toBe(l.node);
    expect((await holder(n))[0]).toBe('other');
    expect(logger.text('warn')).toContain(`lease ${n} ran out`);
    // Giving back only ever drops its own.
    await l.release();
    expect((await holder(n))[0]).toBe('other');
  });

  it('with all 1,024 numbers held, mints with the one its search started at, says so once, and takes a number that comes free', async () => {
    const ends = (await serverTimeMs(engine.client)) + 60_000;
    const fields: string[] = ['next', '9'];
    for (let n = 0; n < 1024; n++) fields.push(String(n), `other ${ends}`);
    await engine.client.hset(KEY, ...fields);
    const logger = new CapturingLogger();
    // A 300 ms lease: it asks again every 30 ms.
    const l = lease(300, logger);
    await l.take();
    expect(l.node).toBeUndefined();
    expect(jobIdNode()).toBe(9);
    expect(logger.text('warn')).toContain('All 1,024 job-id node numbers are held');
    await new Promise((r) => setTimeout(r, 200));
    expect(l.node).toBeUndefined();
    expect(jobIdNode()).toBe(9);
    expect(logger.text('warn').match(/All 1,024/g)).toHaveLength(1);
    // Its holder gives 700 back: the next ask takes it, and mints with it from then on.
    await engine.client.hdel(KEY, '700');
    await until(() => l.node !== undefined, 2_000, 'the freed number taken');
    expect(l.node).toBe(700);
    expect(jobIdNode()).toBe(700);
    expect((await holder(700))[0]).toMatch(/^[0-9a-f]{24}$/);
    expect(logger.text('log')).toContain('now mints with 700, its own');
  });

  it('a take still on the wire when the lease is given back gives its number straight back', async () => {
    const l = lease();
    const taking = l.take();
    await l.release();
    await taking;
    expect(l.node).toBeUndefined();
    expect(await engine.client.hlen(KEY)).toBe(1); // only `next`
  });

  it('the module takes a number when the app starts and gives it back when it closes', async () => {
    const { app } = await bootApp(engine.server.url, []);
    const node = jobIdNode();
    const [token] = await holder(node);
    expect(token).toMatch(/^[0-9a-f]{24}$/);
    await app.close();
    expect(await engine.client.hexists(KEY, String(node))).toBe(0);
  });

  // NOTE: last in the file: the skews move this process's mint clock, and ids never go back.
  it('mints on the server\'s clock, measured at every take: a host clock 30 s behind or ahead still gives jobs their server-clock submit time and head age', async () => {
    const realNow = Date.now.bind(Date);
    for (const skew of [-30_000, 30_000]) {
      const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
      try {
        await lease().take();
        const server = await serverTimeMs(engine.client);
        expect(Math.abs(decodeJobId(mintJobId()).ms - server)).toBeLessThan(500);
        const q = engine.queues.queue();
        await engine.lanes.submit(q, 'a', 1);
        await new Promise((r) => setTimeout(r, 300));
        const waited = (await engine.lanes.lane(q, 'a')).headWaitMs!;
        expect(waited).toBeGreaterThanOrEqual(250);
        expect(waited).toBeLessThan(1_500);
      } finally {
        spy.mockRestore();
      }
    }
    await lease().take();
  });
});
