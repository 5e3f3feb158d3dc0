import type IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, keysOf } from '../support/engine';
import { ForeignWriter } from '../support/foreign-writer';

describe('queue-wide pause (pauseQueue / resumeQueue)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  let foreign: ForeignWriter;
  beforeAll(() => {
    ({ client, lanes } = engine);
    foreign = new ForeignWriter(client);
  });

  it('no claim serves any lane while paused; lanes keep their state; resume serves again and wakes a consumer', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.submitMany(q, [{ group: 'a', payload: 1 }, { group: 'b', payload: 2 }, { group: 'c', payload: 3 }]);
    await lanes.pause(q, 'c');
    await lanes.pauseQueue(q);
    expect(await client.hget(k.meta, 'paused')).toBe('1');
    expect((await lanes.stats(q)).paused).toBe(true);
    expect(await lanes.claim(q)).toBeNull();
    expect(await lanes.wclaim(q)).toEqual([]);
    expect((await lanes.claimMany(q, 5)).jobs).toEqual([]);
    expect((await lanes.wclaimMany(q, 5)).turns).toEqual([]);
    expect(await client.lrange(k.ring, 0, -1)).toEqual(['a', 'b']);
    expect((await lanes.lanes(q)).map((l) => [l.group, l.pending, l.paused, l.inRing])).toEqual([
      ['a', 1, false, true], ['b', 1, false, true], ['c', 1, true, false],
    ]);

    await client.del(k.wake);
    await lanes.resumeQueue(q);
    expect(await client.llen(k.wake)).toBe(2); // one per lane on the ring: a and b
    expect((await lanes.stats(q)).paused).toBe(false);
    expect((await lanes.claimMany(q, 5)).jobs.map((j) => j.group)).toEqual(['a', 'b']);
  });

  it('wakes nobody while paused (a submit, a delayed submit), and on resume one consumer per lane on the ring', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.pauseQueue(q);
    await client.del(k.wake);
    await lanes.submit(q, 'a', { i: 1 });
    await lanes.submitMany(q, [{ group: 'b', payload: 2 }, { group: 'a', payload: 3 }]);
    await lanes.submit(q, 'c', { i: 4 }, { delayMs: 60_000 });
    expect(await client.llen(k.wake)).toBe(0);
    await lanes.resumeQueue(q);
    expect(await client.llen(k.wake)).toBe(2); // one per lane on the ring: a and b
    await lanes.submit(q, 'd', { i: 5 });
    expect(await client.llen(k.wake)).toBe(3);
    // An empty ring still gets one token on resume: a claim promotes what fell due meanwhile.
    const empty = queues.queue();
    await lanes.pauseQueue(empty);
    await lanes.resumeQueue(empty);
    expect(await client.llen(keysOf(empty).wake)).toBe(1);
  });

  it("the reference's pause holds for our claims, and ours for the reference's", async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 1 });
    await foreign.enqueue(q, 'b', mintJobId(), '{"i":2}');
    await foreign.pauseQueue(q);
    expect(await lanes.claim(q)).toBeNull();
    expect((await lanes.stats(q)).paused).toBe(true);
    await lanes.resumeQueue(q);
    await lanes.pauseQueue(q);
    expect(await foreign.claim(q)).toBeNull();
    await foreign.resumeQueue(q);
    expect((await lanes.claim(q))?.group).toBe('a');
    expect((await foreign.claim(q))?.group).toBe('b');
  });

  it('pause and resume are idempotent and change nothing else', async () => {
    const q = queues.queue();
    await lanes.pauseQueue(q);
    await lanes.pauseQueue(q);
    await lanes.resumeQueue(q);
    await lanes.resumeQueue(q);
    expect(await client.exists(keysOf(q).meta)).toBe(0);
    await expect(lanes.pauseQueue('')).rejects.toThrow(/queue/);
  });
});
