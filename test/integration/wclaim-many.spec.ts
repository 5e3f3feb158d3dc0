import IORedis from 'ioredis';
import { engineFixture, keysOf, serverTimeMs, tag, waitPastServerTime } from '../support/engine';
import { snapshot } from '../support/lanes';
import { mintJobId } from '../../lib/ids/job-id';
import type { LaneJob, SubmitItem } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { seeded } from '../support/seeded';

/** What a served job says, without its clock readings (two queues are built and served a few ms apart). */
const seen = (j: LaneJob) => ({ id: j.id, group: j.group, attempt: j.attempt, payload: j.payload, lastError: j.lastError });

describe('wclaimMany: many weighted turns in one script', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  const fill = async (q: string, group: string, n: number) =>
    lanes.submitMany(q, [...Array(n).keys()].map((i) => ({ group, payload: { i } })));

  /**
   * A queue's keys and contents with its name taken out and the clock readings dropped (lease
   * deadlines, due times, timers, submit times, the claim times of rate logs), to compare two
   * queues built and served a few ms apart.
   */
  async function state(q: string): Promise<unknown> {
    const k = keysOf(q);
    const snap = await snapshot(client, q);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(snap)) {
      // The per-second completion buckets are named by the second they fell in: only their sum compares.
      if (key.startsWith(`${k.stats}:`)) {
        out['completions in buckets'] = Number(out['completions in buckets'] ?? 0) + Number(value);
        continue;
      }
      // NOTE: so are the shares' 10 s buckets (lane -> jobs served, or work): what each lane was served
      // compares, summed over them, whichever bucket the two runs' claims fell in.
      const share = /:(served|work):\d+$/.exec(key);
      if (share && key.startsWith(k.base)) {
        const sums = (out[`${share[1]} by lane`] ??= {}) as Record<string, number>;
        const flat = value as string[];
        for (let i = 0; i < flat.length; i += 2) sums[flat[i]] = (sums[flat[i]] ?? 0) + Number(flat[i + 1]);
        continue;
      }
      let v = value;
      if (key === k.active || key === k.schedule || key === k.timers) v = (value as string[]).filter((_, i) => i % 2 === 0).sort();
      else if (key.startsWith(`${k.base}job:`)) v = { ...(value as Record<string, string>), at: undefined };
      else if (key.endsWith(':rate')) v = (value as string[]).length;
      out[key.replace(q, 'Q')] = v;
    }
    return out;
  }

  it('serves job for job what the same number of single wclaims serve on an identically built queue', async () => {
    const SEED = 20261201;
    const rnd = seeded(SEED);
    const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    const a = queues.queue();
    const b = queues.queue();
    const both = async (op: (q: string) => Promise<unknown>) => {
      await op(a);
      await op(b);
    };
    // Twelve lanes of mixed depth, weights 1..5 (some unset), ceilings on some, rate ceilings (an hour
    // long, so no window ages out during the test) on others, one paused, a few jobs that fall due
    // at once, and some jobs already held: the same ids in both queues.
    const groups = [...Array(12).keys()].map((i) => `g${i}`);
    for (let round = 0; round < 3; round++) {
      const items: SubmitItem[] = [];
      for (const g of groups) {
        for (let n = int(0, 25); n > 0; n--) items.push({ group: g, payload: { g, r: rnd() }, opts: { jobId: mintJobId() } });
      }
      for (let n = 0; n < 4; n++) items.push({ group: groups[int(0, 11)], payload: { due: n }, opts: { jobId: mintJobId(), delayMs: 1 } });
      await both((q) => lanes.submitMany(q, items));
    }
    for (const g of groups) {
      const w = int(0, 5);
      if (w > 0) await both((q) => lanes.weight(q, g, w));
      if (rnd() < 0.3) {
        const limit = int(1, 4);
        await both((q) => lanes.limit(q, g, limit));
      }
      if (rnd() < 0.3) {
        const max = int(2, 12);
        await both((q) => lanes.rate(q, g, { max, perMs: 3_600_000 }));
      }
    }
    await both((q) => lanes.pause(q, 'g3'));
    await waitPastServerTime(client, (await serverTimeMs(client)) + 2);
    await both((q) => lanes.claimMany(q, 5, { leaseMs: 60_000 }));
    expect(await state(a)).toEqual(await state(b));

    const held: LaneJob[] = [];
    let turnsTaken = 0;
    let rateParked = 0;
    for (let call = 0; call < 25; call++) {
      const turns = int(1, 12);
      const opts = { leaseMs: 60_000, max: rnd() < 0.3 ? int(1, 3) : undefined, untilJobs: rnd() < 0.4 ? int(1, 20) : undefined };
      const many = await lanes.wclaimMany(a, turns, opts);
      const single: LaneJob[][] = [];
      let served = 0;
      while (single.length < turns && served < (opts.untilJobs ?? Infinity)) {
        const jobs = await lanes.wclaim(b, { leaseMs: opts.leaseMs, max: opts.max });
        if (jobs.length === 0) break;
        single.push(jobs);
        served += jobs.length;
      }
      const what = `[seed ${SEED}] call ${call}: wclaimMany(${turns}, ${JSON.stringify(opts)})`;
      expect({ what, turns: many.turns.map((t) => t.map(seen)) }).toEqual({ what, turns: single.map((t) => t.map(seen)) });
      expect(new Set(many.turns.flat().map((j) => j.leaseUntil)).size).toBeLessThanOrEqual(1);
      turnsTaken += many.turns.length;
      if ((await client.zrange(keysOf(a).timers, 0, -1)).some((m) => m.startsWith('r:'))) rateParked += 1;
      held.push(...many.turns.flat());
      expect({ what, state: await state(a) }).toEqual({ what, state: await state(b) });
      // Between calls: finish some held jobs (reopening lanes at their ceiling), steer a lane, add work.
      for (let n = int(0, held.length); n > 0; n--) {
        const [job] = held.splice(int(0, held.length - 1), 1);
        await both((q) => lanes.complete(q, job.id, job.attempt));
      }
      if (rnd() < 0.3) {
        const g = groups[int(0, 11)];
        const w = int(1, 6);
        await both((q) => lanes.weight(q, g, w));
      }
      if (call === 12) await both((q) => lanes.resume(q, 'g3'));
      if (rnd() < 0.3) {
        const items = [...Array(int(1, 10))].map(() => ({ group: groups[int(0, 11)], payload: { late: rnd() }, opts: { jobId: mintJobId() } }));
        await both((q) => lanes.submitMany(q, items));
      }
    }
    // The comparison saw real work: many turns, with lanes parked at their rate along the way.
    expect(turnsTaken).toBeGreaterThan(60);
    expect(rateParked).toBeGreaterThan(0);
  });

  it('over many script calls (more than 100 jobs) serves the same turns as single wclaims, by turns and by untilJobs', async () => {
    const a = queues.queue();
    const b = queues.queue();
    const groups = [...Array(30).keys()].map((i) => `g${i}`);
    const items: SubmitItem[] = groups.flatMap((g, i) => [...Array(20 + (i % 7) * 5).keys()].map((n) => ({ group: g, payload: { g, n }, opts: { jobId: mintJobId() } })));
    for (const q of [a, b]) {
      await lanes.submitMany(q, items);
      for (const [i, g] of groups.entries()) if (i % 4 !== 0) await lanes.weight(q, g, 1 + (i % 7));
      await lanes.limit(q, 'g5', 3);
    }
    const singles = async (turns: number, untilJobs = Infinity): Promise<LaneJob[][]> => {
      const out: LaneJob[][] = [];
      let served = 0;
      while (out.length < turns && served < untilJobs) {
        const jobs = await lanes.wclaim(b, { leaseMs: 60_000 });
        if (jobs.length === 0) break;
        out.push(jobs);
        served += jobs.length;
      }
      return out;
    };
    const byTurns = await lanes.wclaimMany(a, 150, { leaseMs: 60_000 });
    expect(byTurns.turns.flat().length).toBeGreaterThan(300);
    expect(byTurns.turns.map((t) => t.map(seen))).toEqual((await singles(150)).map((t) => t.map(seen)));
    const byJobs = await lanes.wclaimMany(a, 1_000, { leaseMs: 60_000, untilJobs: 333 });
    const served = byJobs.turns.flat().length;
    expect(served).toBeGreaterThanOrEqual(333);
    expect(byJobs.turns.map((t) => t.map(seen))).toEqual((await singles(1_000, 333)).map((t) => t.map(seen)));
    expect(await state(a)).toEqual(await state(b));
  });

  it('returns each turn in its own array, in ring order, as many turns as asked', async () => {
    const q = queues.queue();
    for (const g of ['a', 'b', 'c']) await fill(q, g, 6);
    await lanes.weight(q, 'a', 3);
    await lanes.weight(q, 'c', 2);
    const { turns, dueInMs } = await lanes.wclaimMany(q, 4);
    expect(turns.map((t) => t.map(tag))).toEqual([['a0', 'a1', 'a2'], ['b0'], ['c0', 'c1'], ['a3', 'a4', 'a5']]);
    expect(dueInMs).toBe(-1);
    expect((await lanes.lane(q, 'a')).inRing).toBe(false);
  });

  it('with no weight set on any lane, serves one job per turn; a weight set later counts at once', async () => {
    const q = queues.queue();
    for (const g of ['a', 'b', 'c']) await fill(q, g, 4);
    expect(await client.exists(keysOf(q).weight)).toBe(0);
    expect((await lanes.wclaimMany(q, 5)).turns.map((t) => t.map(tag))).toEqual([['a0'], ['b0'], ['c0'], ['a1'], ['b1']]);
    await lanes.weight(q, 'a', 2);
    expect((await lanes.wclaimMany(q, 2)).turns.map((t) => t.map(tag))).toEqual([['c1'], ['a2', 'a3']]);
  });

  it('stops after the turn that reaches untilJobs, serving that turn whole', async () => {
    const q = queues.queue();
    for (const g of ['a', 'b']) await fill(q, g, 20);
    await lanes.weight(q, 'a', 4);
    await lanes.weight(q, 'b', 3);
    const { turns } = await lanes.wclaimMany(q, 100, { untilJobs: 5 });
    expect(turns.map((t) => t.length)).toEqual([4, 3]);
    // The next call goes on with the next turn of the ring.
    expect((await lanes.wclaimMany(q, 1)).turns.map((t) => t.map(tag))).toEqual([['a4', 'a5', 'a6', 'a7']]);
  });

  it('stops when no lane is serviceable: paused and full lanes are skipped, K is clamped by ceiling and max', async () => {
    const q = queues.queue();
    await fill(q, 'a', 10);
    await fill(q, 'b', 10);
    await fill(q, 'p', 10);
    await lanes.weight(q, 'a', 5);
    await lanes.limit(q, 'a', 3);
    await lanes.weight(q, 'b', 4);
    await lanes.pause(q, 'p');
    const { turns } = await lanes.wclaimMany(q, 10, { max: 2 });
    // a: min(5, ceiling 3, max 2) = 2, then 1 left under its ceiling; b: max 2 per turn until it is empty.
    expect(turns.map((t) => t.map(tag))).toEqual([
      ['a0', 'a1'], ['b0', 'b1'], ['a2'], ['b2', 'b3'], ['b4', 'b5'], ['b6', 'b7'], ['b8', 'b9'],
    ]);
    expect(await lanes.lane(q, 'a')).toMatchObject({ active: 3, pending: 7, inRing: false });
    expect(await lanes.lane(q, 'p')).toMatchObject({ pending: 10, paused: true, inRing: false });
    expect(await client.llen(keysOf(q).ring)).toBe(0);
    expect((await lanes.wclaimMany(q, 10)).turns).toEqual([]);
  });

  it('serves at most 1,000 jobs in one call: the turn that would pass it is cut to fit', async () => {
    const q = queues.queue();
    await fill(q, 'a', 700);
    await fill(q, 'b', 700);
    await lanes.weight(q, 'a', 600);
    await lanes.weight(q, 'b', 600);
    const { turns } = await lanes.wclaimMany(q, 1_000);
    expect(turns.map((t) => t.length)).toEqual([600, 400]);
    expect(turns[1].map(tag).slice(-1)).toEqual(['b399']);
    expect(await lanes.lane(q, 'b')).toMatchObject({ pending: 300, active: 400, inRing: true });
    expect(await client.zcard(keysOf(q).active)).toBe(1_000);
  });

  it('respects rate ceilings: K clamped by the room in the window, a lane at its rate leaves the ring, dueIn its reopening', async () => {
    const q = queues.queue();
    await fill(q, 'r', 20);
    await fill(q, 'o', 20);
    await lanes.weight(q, 'r', 4);
    await lanes.weight(q, 'o', 2);
    await lanes.rate(q, 'r', { max: 6, perMs: 60_000 });
    const { turns, dueInMs } = await lanes.wclaimMany(q, 6);
    // r: 4, then the 2 left in its window (and it is parked); o goes on alone.
    expect(turns.map((t) => t.map(tag))).toEqual([
      ['r0', 'r1', 'r2', 'r3'], ['o0', 'o1'], ['r4', 'r5'], ['o2', 'o3'], ['o4', 'o5'], ['o6', 'o7'],
    ]);
    expect(await lanes.lane(q, 'r')).toMatchObject({ pending: 14, active: 6, inRing: false, rate: { max: 6, perMs: 60_000 } });
    expect(await client.zrange(keysOf(q).timers, 0, -1)).toContain('r:r');
    expect(dueInMs).toBeGreaterThan(50_000);
    expect(dueInMs).toBeLessThanOrEqual(60_000);
    // Completing does not reopen a lane at its rate: only its window does.
    for (const j of turns.flat()) await lanes.complete(q, j.id, j.attempt);
    const next = await lanes.wclaimMany(q, 20);
    expect(new Set(next.turns.flat().map((j) => j.group))).toEqual(new Set(['o']));
    expect(next.turns.flat()).toHaveLength(12);
    expect(next.dueInMs).toBeGreaterThan(50_000);
  });

  it('a rate window that ages out lets the lane back for the next turns', async () => {
    const q = queues.queue();
    await fill(q, 'r', 10);
    await lanes.weight(q, 'r', 3);
    await lanes.rate(q, 'r', { max: 2, perMs: 50 });
    const first = await lanes.wclaimMany(q, 5, { leaseMs: 10_000 });
    expect(first.turns.map((t) => t.map(tag))).toEqual([['r0', 'r1']]);
    expect(first.dueInMs).toBeGreaterThanOrEqual(0);
    expect(first.dueInMs).toBeLessThanOrEqual(50);
    // Claimed at leaseUntil − 10 s (server clock); the window is 50 ms.
    await waitPastServerTime(client, first.turns[0][0].leaseUntil - 10_000 + 50);
    const second = await lanes.wclaimMany(q, 5);
    expect(second.turns.map((t) => t.map(tag))).toEqual([['r2', 'r3']]);
  });

  it('promotes due scheduled jobs first and reports when the next one falls due', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', { i: 0 }, { delayMs: 1 });
    await lanes.submit(q, 'a', { i: 1 }, { delayMs: 60_000 });
    await waitPastServerTime(client, (await serverTimeMs(client)) + 2);
    const { turns, dueInMs } = await lanes.wclaimMany(q, 5);
    expect(turns.map((t) => t.map(tag))).toEqual([['a0']]);
    expect(dueInMs).toBeGreaterThan(50_000);
    expect(dueInMs).toBeLessThanOrEqual(60_000);
  });
});
