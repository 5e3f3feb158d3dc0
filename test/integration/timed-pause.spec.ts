import { engineFixture, keysOf, serverTimeMs, waitPastServerTime } from '../support/engine';
import { sameLane } from '../support/lanes';

describe('timed pauses with a reason', () => {
  const fx = engineFixture();

  it('a timed pause resumes by itself at its end (server clock); lane() shows pausedUntil and pauseReason until then', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submitMany(q, [{ group: 'a', payload: 1 }, { group: 'a', payload: 2 }]);
    const before = await serverTimeMs(fx.client);
    await fx.lanes.pause(q, 'a', { forMs: 300, reason: 'upstream maintenance' });
    const after = await serverTimeMs(fx.client);
    const paused = await fx.lanes.lane(q, 'a');
    expect(paused).toMatchObject({ pending: 2, paused: true, inRing: false, pauseReason: 'upstream maintenance' });
    expect(paused.pausedUntil).toBeGreaterThanOrEqual(before + 300);
    expect(paused.pausedUntil).toBeLessThanOrEqual(after + 300);
    expect((await fx.lanes.lanes(q)).find((l) => l.group === 'a')).toEqual(sameLane(paused));
    // Claims serve nothing meanwhile, and tell an idle consumer how long to wait.
    const none = await fx.lanes.claimMany(q, 1);
    expect(none.jobs).toEqual([]);
    expect(none.dueInMs).toBeGreaterThan(0);
    expect(none.dueInMs).toBeLessThanOrEqual(300);
    await waitPastServerTime(fx.client, paused.pausedUntil! - 1);
    // After the end and before any claim, a read reports the lane as resumed (the next claim applies it).
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true, pausedUntil: null, pauseReason: null });
    const job = await fx.lanes.claim(q);
    expect(job!.payload).toBe(1);
    expect(await fx.client.sismember(keysOf(q).paused, 'a')).toBe(0);
    expect(await fx.client.hexists(keysOf(q).pauseInfo, 'a')).toBe(0);
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual([]);
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true, pending: 1, active: 1 });
  });

  it('resume clears the timer and the reason; a pause without forMs keeps its reason until resumed', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submit(q, 'a', 1);
    await fx.lanes.pause(q, 'a', { forMs: 60_000, reason: 'later' });
    await fx.lanes.resume(q, 'a');
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true, pausedUntil: null, pauseReason: null });
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual([]);
    await fx.lanes.pause(q, 'a', { reason: 'by hand' });
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: true, inRing: false, pausedUntil: null, pauseReason: 'by hand' });
    // A timed pause over an untimed one sets the end; a plain pause over a timed one drops the end.
    await fx.lanes.pause(q, 'a', { forMs: 60_000 });
    expect((await fx.lanes.lane(q, 'a')).pausedUntil).not.toBeNull();
    expect((await fx.lanes.lane(q, 'a')).pauseReason).toBeNull();
    await fx.lanes.pause(q, 'a');
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: true, pausedUntil: null, pauseReason: null });
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual([]);
    await fx.lanes.resume(q, 'a');
    expect((await fx.lanes.claim(q))!.payload).toBe(1);
  });

  it('a timed pause and a rate on one lane: the pause ends into a full window, and the lane waits for the window', async () => {
    const q = fx.queues.queue();
    await fx.lanes.rate(q, 'a', { max: 1, perMs: 600 });
    await fx.lanes.submitMany(q, [1, 2, 3].map((i) => ({ group: 'a', payload: i })));
    const first = await fx.lanes.claim(q, { leaseMs: 60_000 });
    const claimedAt = first!.leaseUntil - 60_000;
    await fx.lanes.pause(q, 'a', { forMs: 100 });
    await waitPastServerTime(fx.client, claimedAt + 150);
    // The pause is over but the window is not: nothing to serve yet.
    expect(await fx.lanes.claim(q)).toBeNull();
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: false });
    await waitPastServerTime(fx.client, claimedAt + 599);
    const second = await fx.lanes.claim(q, { leaseMs: 60_000 });
    expect(second!.payload).toBe(2);
    expect(second!.leaseUntil - 60_000).toBeGreaterThanOrEqual(claimedAt + 600);
  });

  it('stats() agrees with lane() once a timed pause has ended, before any claim: the lane is no longer counted paused and is on the ring', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submit(q, 'a', 1);
    // NOTE: long enough that the reads below come before the end on a loaded machine too.
    await fx.lanes.pause(q, 'a', { forMs: 1_000 });
    expect(await fx.lanes.stats(q)).toMatchObject({ pausedLanes: 1, ringLength: 0, lanes: 1, pending: 1 });
    const { pausedUntil } = await fx.lanes.lane(q, 'a');
    await waitPastServerTime(fx.client, pausedUntil! + 200);
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true });
    expect(await fx.lanes.stats(q)).toMatchObject({ pausedLanes: 0, ringLength: 1, lanes: 1, pending: 1 });
    // The read applied the end as a claim would: the stored state matches what it reported.
    expect(await fx.client.smembers(keysOf(q).paused)).toEqual([]);
    expect(await fx.client.lrange(keysOf(q).ring, 0, -1)).toEqual(['a']);
    expect(await fx.client.zrange(keysOf(q).timers, 0, -1)).toEqual([]);
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true, pausedUntil: null });
    expect((await fx.lanes.claim(q))!.payload).toBe(1);
  });

  it('position() agrees with lane() once a timed pause has ended, before any claim: the job\'s lane has its place in the ring', async () => {
    const q = fx.queues.queue();
    const id = await fx.lanes.submit(q, 'a', 1);
    await fx.lanes.submit(q, 'b', 2);
    await fx.lanes.pause(q, 'a', { forMs: 1_000 });
    expect(await fx.lanes.position(q, id)).toMatchObject({ laneRank: 0, ringIndex: null, ringLength: 1, exact: false });
    const { pausedUntil } = await fx.lanes.lane(q, 'a');
    await waitPastServerTime(fx.client, pausedUntil! + 200);
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true });
    // Back at the tail, behind b: one job ahead of it, and exact again.
    expect(await fx.lanes.position(q, id)).toMatchObject({ laneRank: 0, ringIndex: 1, ringLength: 2, ahead: 1, exact: true });
    expect(await fx.client.lrange(keysOf(q).ring, 0, -1)).toEqual(['b', 'a']);
    expect((await fx.lanes.claim(q))!.payload).toBe(2);
    expect((await fx.lanes.claim(q))!.payload).toBe(1);
  });

  it('while the whole queue is paused, stats() still applies an ended timed pause as lane() reports it, and wakes nobody', async () => {
    const q = fx.queues.queue();
    await fx.lanes.submit(q, 'a', 1);
    await fx.lanes.pause(q, 'a', { forMs: 200 });
    await fx.lanes.pauseQueue(q);
    const tokens = await fx.client.llen(keysOf(q).wake);
    const { pausedUntil } = await fx.lanes.lane(q, 'a');
    await waitPastServerTime(fx.client, pausedUntil! + 200);
    expect(await fx.lanes.lane(q, 'a')).toMatchObject({ paused: false, inRing: true });
    expect(await fx.lanes.stats(q)).toMatchObject({ paused: true, pausedLanes: 0, ringLength: 1 });
    expect(await fx.client.llen(keysOf(q).wake)).toBe(tokens);
    expect(await fx.lanes.claim(q)).toBeNull();
    await fx.lanes.resumeQueue(q);
    expect((await fx.lanes.claim(q))!.payload).toBe(1);
  });
});
