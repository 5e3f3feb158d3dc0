import IORedis from 'ioredis';
import { drain, engineFixture, keysOf, tag } from '../support/engine';
import type { LanesService } from '../../lib/lanes.service';

describe('claim: the ring rotation', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('serves two lanes in strict a, b, a, b rotation', async () => {
    const q = queues.queue();
    for (let i = 0; i < 4; i++) await lanes.submit(q, 'a', { i });
    for (let i = 0; i < 4; i++) await lanes.submit(q, 'b', { i });
    const order = (await drain(lanes, q)).map(tag);
    expect(order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('keeps rotating when a lane empties and when a new lane joins mid-turn', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 0 });
    await lanes.submit(q, 'a', { i: 1 });
    await lanes.submit(q, 'b', { i: 0 });
    const first = await lanes.claim(q);
    expect(tag(first!)).toBe('a0');
    await lanes.submit(q, 'c', { i: 0 });
    const rest = (await drain(lanes, q)).map(tag);
    expect(rest).toEqual(['b0', 'a1', 'c0']);
    expect(await client.llen(keysOf(q).ring)).toBe(0);
  });

  it('serves a lane in submit order', async () => {
    const q = queues.queue();
    for (let i = 0; i < 50; i++) await lanes.submit(q, 'solo', { i });
    const order = (await drain(lanes, q)).map((j) => (j.payload as { i: number }).i);
    expect(order).toEqual([...Array(50).keys()]);
  });

  it('serves each lane in submit order while interleaving lanes (submitMany and submit mixed)', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [...Array(30).keys()].map((i) => ({ group: `g${i % 3}`, payload: { i } })));
    for (let i = 30; i < 36; i++) await lanes.submit(q, `g${i % 3}`, { i });
    const served = await drain(lanes, q);
    for (const g of ['g0', 'g1', 'g2']) {
      const seen = served.filter((j) => j.group === g).map((j) => (j.payload as { i: number }).i);
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
      expect(seen).toHaveLength(12);
    }
    expect(served.slice(0, 6).map((j) => j.group)).toEqual(['g0', 'g1', 'g2', 'g0', 'g1', 'g2']);
  });

  it('starvation: with a 1,000-job lane submitted first and ten 10-job lanes, every light job is served within the first 110 claims', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [...Array(1000).keys()].map((i) => ({ group: 'heavy', payload: { i } })));
    const light: { group: string; payload: { i: number } }[] = [];
    for (let l = 0; l < 10; l++) for (let i = 0; i < 10; i++) light.push({ group: `light${l}`, payload: { i } });
    await lanes.submitMany(q, light);

    const served: string[] = [];
    for (let n = 0; n < 110; n++) {
      const job = await lanes.claim(q);
      expect(job).not.toBeNull();
      served.push(job!.group);
      await lanes.complete(q, job!.id, job!.attempt);
    }
    expect(served.filter((g) => g !== 'heavy')).toHaveLength(100);
    expect(served.filter((g) => g === 'heavy')).toHaveLength(10);
    // Each turn of the ring serves every lane once, the heavy lane first.
    for (let turn = 0; turn < 10; turn++) {
      expect(served.slice(turn * 11, turn * 11 + 11)).toEqual(['heavy', ...[...Array(10).keys()].map((l) => `light${l}`)]);
    }
    const after = await lanes.lanes(q);
    expect(after.map((l) => l.group)).toEqual(['heavy']);
    expect(after[0].pending).toBe(990);
  });

  it('returns null from an empty queue and from a queue whose lanes are all unserviceable', async () => {
    const q = queues.queue();
    expect(await lanes.claim(q)).toBeNull();
    await lanes.submit(q, 'p', { i: 0 });
    await lanes.pause(q, 'p');
    expect(await lanes.claim(q)).toBeNull();
    expect(await lanes.wclaim(q)).toEqual([]);
  });

  it('returns the job with its lease on the server clock, its payload and submittedAt', async () => {
    const q = queues.queue();
    const id = await lanes.submit(q, 'a', { hello: ['w', 1, null] });
    const [s] = (await client.time()) as unknown as [string];
    const job = await lanes.claim(q, { leaseMs: 5_000 });
    expect(job).toMatchObject({ id, queue: q, group: 'a', payload: { hello: ['w', 1, null] }, attempt: 1 });
    expect(job!.lastError).toBeUndefined();
    expect(Math.abs(job!.leaseUntil - (Number(s) * 1000 + 5_000))).toBeLessThan(2_000);
    expect(Number(await client.zscore(keysOf(q).active, id))).toBe(job!.leaseUntil);
    expect(job!.submittedAt).toBeLessThanOrEqual(job!.leaseUntil - 5_000);
    expect(await client.hget(keysOf(q).job(id), 'state')).toBe('active');
    expect(await client.hget(keysOf(q).job(id), 'attempts')).toBe('1');
  });

  it('claimMany(queue, n) serves exactly what n single claims in a row would', async () => {
    const single = queues.queue();
    const many = queues.queue();
    const setup = async (q: string) => {
      await lanes.weight(q, 'w', 3);
      await lanes.limit(q, 'cap', 2);
      for (let i = 0; i < 12; i++) await lanes.submit(q, ['a', 'b', 'cap', 'w'][i % 4], { i });
      for (let i = 0; i < 5; i++) await lanes.submit(q, 'a', { i: 100 + i });
      await lanes.submit(q, 'paused', { i: 0 });
      await lanes.pause(q, 'paused');
    };
    await setup(single);
    await setup(many);
    for (const n of [1, 3, 7, 50]) {
      const one: string[] = [];
      for (let i = 0; i < n; i++) {
        const job = await lanes.claim(single);
        if (!job) break;
        one.push(tag(job));
      }
      const { jobs } = await lanes.claimMany(many, n);
      expect(jobs.map(tag)).toEqual(one);
    }
    expect(await client.lrange(keysOf(many).ring, 0, -1)).toEqual(await client.lrange(keysOf(single).ring, 0, -1));
    expect(await client.hgetall(keysOf(many).gactive)).toEqual(await client.hgetall(keysOf(single).gactive));
  });

  it('claimMany of more than one script call\'s worth (250) serves the same as claims in a row, across the calls', async () => {
    const single = queues.queue();
    const many = queues.queue();
    for (const q of [single, many]) {
      await lanes.limit(q, 'cap', 3);
      await lanes.submitMany(q, Array.from({ length: 700 }, (_, i) => ({ group: i % 7 === 0 ? 'cap' : `g${i % 40}`, payload: { i } })));
    }
    const one: string[] = [];
    for (let i = 0; i < 600; i++) one.push(tag((await lanes.claim(single))!));
    const { jobs } = await lanes.claimMany(many, 600);
    expect(jobs).toHaveLength(600);
    expect(jobs.map(tag)).toEqual(one);
    // Asked for more than there is: it stops where claims in a row find the ring dry (the capped lane
    // stays at its ceiling, its three jobs held).
    const rest = await lanes.claimMany(many, 1_000);
    const restOne: string[] = [];
    for (let job = await lanes.claim(single); job; job = await lanes.claim(single)) restOne.push(tag(job));
    expect(rest.jobs.length).toBeGreaterThan(0);
    expect(rest.jobs.map(tag)).toEqual(restOne);
  });
});
