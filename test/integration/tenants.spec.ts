import IORedis from 'ioredis';
import type { LanesService } from '../../lib/lanes.service';
import { tenantEntry } from '../../lib/redis/lane-keys';
import { drain, engineFixture, keysOf } from '../support/engine';

describe('tenants: a tenant\'s lanes share one turn', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it('fairness 6: each of the first 10 turns serves A once, B once and each of the five once; A\'s 10 claims go to 10 lanes of A', async () => {
    const q = queues.queue();
    const items: { group: string; payload: { i: number }; opts?: { tenant: string } }[] = [];
    for (let l = 0; l < 20; l++) for (let i = 0; i < 50; i++) items.push({ group: `a${l}`, payload: { i }, opts: { tenant: 'A' } });
    for (let i = 0; i < 50; i++) items.push({ group: 'b0', payload: { i }, opts: { tenant: 'B' } });
    for (let l = 0; l < 5; l++) for (let i = 0; i < 10; i++) items.push({ group: `free${l}`, payload: { i } });
    await lanes.submitMany(q, items);
    const who = (group: string): string => (group.startsWith('a') ? 'A' : group.startsWith('b') ? 'B' : group);
    const aLanes = new Set<string>();
    for (let turn = 0; turn < 10; turn++) {
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) {
        const job = await lanes.claim(q);
        expect(job).not.toBeNull();
        seen.push(who(job!.group));
        if (job!.group.startsWith('a')) aLanes.add(job!.group);
        await lanes.complete(q, job!.id, job!.attempt);
      }
      expect(seen.sort()).toEqual(['A', 'B', 'free0', 'free1', 'free2', 'free3', 'free4']);
    }
    expect(aLanes.size).toBe(10);
  });

  it('the queue ring holds one entry per tenant, each tenant ring its serviceable lanes; both empty when drained', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    for (let l = 0; l < 3; l++) await lanes.submit(q, `a${l}`, { i: l }, { tenant: 'A' });
    await lanes.submit(q, 'solo', { i: 0 });
    expect(await client.lrange(k.ring, 0, -1)).toEqual([tenantEntry('A'), 'solo']);
    expect(await client.lrange(k.tenantRing('A'), 0, -1)).toEqual(['a0', 'a1', 'a2']);
    expect(await client.get(k.laneTenant('a1'))).toBe('A');
    const order = (await drain(lanes, q)).map((j) => j.group);
    expect(order).toEqual(['a0', 'solo', 'a1', 'a2']);
    expect(await client.llen(k.ring)).toBe(0);
    expect(await client.exists(k.ringSet, k.tenantRing('A'), k.tenantRingSet('A'), k.laneTenant('a1'))).toBe(0);
  });

  it('a submit that names no tenant goes to the lane under its tenant', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.submit(q, 'a', { i: 0 }, { tenant: 'A' });
    await lanes.submit(q, 'a', { i: 1 });
    expect(await client.lrange(k.ring, 0, -1)).toEqual([tenantEntry('A')]);
    expect((await drain(lanes, q)).map((j) => j.group)).toEqual(['a', 'a']);
  });

  it('a tenant leaves the queue ring when its lanes pause and rejoins on resume', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.submit(q, 'a0', { i: 0 }, { tenant: 'A' });
    await lanes.submit(q, 'a1', { i: 0 }, { tenant: 'A' });
    await lanes.pause(q, 'a0');
    expect(await client.lrange(k.tenantRing('A'), 0, -1)).toEqual(['a1']);
    await lanes.pause(q, 'a1');
    expect(await client.llen(k.ring)).toBe(0);
    expect(await lanes.claim(q)).toBeNull();
    await lanes.resume(q, 'a1');
    expect(await client.lrange(k.ring, 0, -1)).toEqual([tenantEntry('A')]);
    expect((await lanes.claim(q))!.group).toBe('a1');
  });

  it('a lane at its ceiling leaves its tenant ring, and a complete puts it back under its tenant', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.limit(q, 'a0', 1);
    for (let i = 0; i < 3; i++) await lanes.submit(q, 'a0', { i }, { tenant: 'A' });
    const job = await lanes.claim(q);
    expect(await client.llen(k.ring)).toBe(0);
    expect(await lanes.claim(q)).toBeNull();
    await lanes.complete(q, job!.id, job!.attempt);
    expect(await client.lrange(k.ring, 0, -1)).toEqual([tenantEntry('A')]);
    expect(await client.lrange(k.tenantRing('A'), 0, -1)).toEqual(['a0']);
  });

  it('a retry after backoff and a dead job retried put the lane back under its tenant, after the lane was forgotten', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.submit(q, 'a0', { i: 0 }, { tenant: 'A', maxAttempts: 1 });
    const job = await lanes.claim(q);
    expect(await lanes.fail(q, job!.id, job!.attempt, 'boom')).toBe('dead');
    expect(await client.exists(k.laneTenant('a0'))).toBe(0);
    await lanes.retryDead(q, job!.id);
    expect(await client.get(k.laneTenant('a0'))).toBe('A');
    expect(await client.lrange(k.ring, 0, -1)).toEqual([tenantEntry('A')]);
  });
});
