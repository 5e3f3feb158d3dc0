import * as fc from 'fast-check';
import IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { FairnessBy, LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { engineFixture, keysOf, snapshotAll } from '../support/engine';
import { lanesOn } from '../support/lanes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fairness by jobs, cost and time', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  /** One claimer that completes each job before its next claim: how many jobs it serves before `id`. */
  const servedBefore = async (q: string, id: string): Promise<number> => {
    for (let before = 0; ; before++) {
      const job = (await lanes.claim(q))!;
      await lanes.complete(q, job.id, job.attempt);
      if (job.id === id) return before;
    }
  };

  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** Submits `n` jobs of `cost` into `group` (payload { i }), returns their ids. */
  const fill = async (q: string, group: string, n: number, cost?: number, tenant?: string) =>
    lanes.submitMany(q, [...Array(n).keys()].map((i) => ({ group, payload: { i }, opts: { ...(cost ? { cost } : {}), ...(tenant ? { tenant } : {}) } })));

  /** Completes what a claim form served, so no lane waits on a ceiling. */
  const finish = async (q: string, jobs: LaneJob[]) => {
    for (const j of jobs) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
  };

  it("is 'jobs' by default; fairness() is stored with the queue, so every process reads it", async () => {
    const q = queues.queue();
    const other = lanesOn(client);
    expect((await lanes.stats(q)).fairness).toEqual({ by: 'jobs' });
    await lanes.fairness(q, { by: 'cost' });
    expect((await other.stats(q)).fairness).toEqual({ by: 'cost' });
    await other.fairness(q, { by: 'time' });
    expect((await lanes.stats(q)).fairness).toEqual({ by: 'time' });
    await lanes.fairness(q, { by: 'jobs' });
    expect(await client.hget(keysOf(q).meta, 'fair')).toBeNull();
    expect((await other.stats(q)).fairness).toEqual({ by: 'jobs' });
  });

  it('fairness 7: cost 10 against cost 1, one claimer: after every claim the cost served differs by at most 10', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'a', 60, 10);
    await fill(q, 'b', 600, 1);
    const served = { a: 0, b: 0 } as Record<string, number>;
    let worst = 0;
    for (let i = 0; i < 600; i++) {
      const job = (await lanes.claim(q))!;
      served[job.group] += job.group === 'a' ? 10 : 1;
      await lanes.complete(q, job.id, job.attempt);
      worst = Math.max(worst, Math.abs(served.a - served.b));
      expect(Math.abs(served.a - served.b)).toBeLessThanOrEqual(10);
    }
    // The same work each, so a hundredth as many jobs... here a tenth: cost 10 against cost 1.
    expect(served.a).toBeGreaterThan(250);
    expect(served.b).toBeGreaterThan(250);
    expect(worst).toBe(10);
  });

  it("in 'jobs' the same two lanes alternate, and the cost served drifts without bound", async () => {
    const q = queues.queue();
    await fill(q, 'a', 50, 10);
    await fill(q, 'b', 50, 1);
    const served = { a: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 100; i++) {
      const job = (await lanes.claim(q))!;
      served[job.group] += job.group === 'a' ? 10 : 1;
      await lanes.complete(q, job.id, job.attempt);
    }
    expect(served).toEqual({ a: 500, b: 50 });
  });

  it('weights are the shares of the work: weight 3 against 1 at equal costs serves 3 : 1 in cost', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'a', 200, 5);
    await fill(q, 'b', 200, 5);
    await lanes.weight(q, 'a', 3);
    const served = { a: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 200; i++) {
      const job = (await lanes.claim(q))!;
      served[job.group] += 5;
      await lanes.complete(q, job.id, job.attempt);
      // The bound for different weights: the largest cost ÷ weight (5 ÷ 1).
      expect(Math.abs(served.a / 3 - served.b / 1)).toBeLessThanOrEqual(5);
    }
    expect(served.a).toBe(750);
  });

  it('a lane that was idle starts at the queue\'s level: idling banks no credit', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'a', 200, 1);
    for (let i = 0; i < 100; i++) await finish(q, [(await lanes.claim(q))!]);
    // b arrives after a was served 100: it does not get 100 in a row to catch up.
    await fill(q, 'b', 200, 1);
    const next: string[] = [];
    for (let i = 0; i < 20; i++) {
      const job = (await lanes.claim(q))!;
      next.push(job.group);
      await lanes.complete(q, job.id, job.attempt);
    }
    expect(next.filter((g) => g === 'b').length).toBeGreaterThanOrEqual(9);
    expect(next.filter((g) => g === 'b').length).toBeLessThanOrEqual(11);
  });

  it('leaving the ring clears no debt: a lane that empties after a costly job waits its turn when it comes back', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'b', 300, 1);
    await fill(q, 'a', 1, 100);
    const order: string[] = [];
    // a's one job (cost 100) and b's jobs; a then empties and leaves the ring owing ~100.
    for (let i = 0; i < 3; i++) {
      const job = (await lanes.claim(q))!;
      order.push(job.group);
      await lanes.complete(q, job.id, job.attempt);
    }
    expect(order).toContain('a');
    await fill(q, 'a', 5, 1);
    const after: string[] = [];
    for (let i = 0; i < 60; i++) {
      const job = (await lanes.claim(q))!;
      after.push(job.group);
      await lanes.complete(q, job.id, job.attempt);
    }
    // b has about 97 units of work to be served before a's start comes round again.
    expect(after.every((g) => g === 'b')).toBe(true);
  });

  it('keeps what lanes and tenants that come and go owe only while they owe it: no key grows with the lanes and tenants ever seen', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.fairness(q, { by: 'cost' });
    // A steady lane keeps the queue's virtual time moving while fresh lanes and tenants come and go.
    await fill(q, 'steady', 400, 1);
    const sizes: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 10; i++) await fill(q, `r${round}-${i}`, 2, 5, i % 2 === 0 ? `t${round}-${i}` : undefined);
      // Served until the round's lanes are gone (the steady lane takes its turns meanwhile).
      while ((await lanes.lanes(q)).some((l) => l.group.startsWith(`r${round}-`))) await finish(q, (await lanes.claimMany(q, 25)).jobs);
      const owed = await client.zcard(k.ring + ':owed');
      const tenantOwed = (await client.keys(`${k.base}t:*:ring:owed`)).length;
      const tags = await client.hlen(`${k.base}vtags`);
      sizes.push(owed + tenantOwed + tags);
    }
    // Each round's lanes and tenants are gone; what is kept stays bounded by a round's worth (10 lanes
    // and 5 tenant entries owed at most), never the 60 lanes and 30 tenants of the six rounds.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(20);
    expect((await client.keys(`${k.base}t:*:ring:owed`)).length).toBe(0);
    expect(await client.hlen(`${k.base}vtags`)).toBeLessThanOrEqual(1);
    // Back in `jobs`, virtual time is gone altogether.
    await lanes.fairness(q, { by: 'jobs' });
    expect(await client.exists(`${k.base}vtags`, k.ring + ':owed')).toBe(0);
  });

  it('claim, claimMany, wclaim and wclaimMany give the same shares: batches serve what single calls in a row would', async () => {
    const build = async () => {
      const q = queues.queue();
      await lanes.fairness(q, { by: 'cost' });
      await fill(q, 'a', 40, 7);
      await fill(q, 'b', 40, 2);
      await fill(q, 'c', 40, 3);
      await lanes.weight(q, 'c', 2);
      return q;
    };
    const one = await build();
    const singles: string[] = [];
    for (let i = 0; i < 30; i++) singles.push((await lanes.claim(one, { leaseMs: 60_000 }))!.id);
    const many = await build();
    const batch = (await lanes.claimMany(many, 30, { leaseMs: 60_000 })).jobs;
    const groupsOf = async (q: string, ids: string[]) => Promise.all(ids.map(async (id) => (await lanes.job(q, id))!.group));
    expect(batch.map((j) => j.group)).toEqual(await groupsOf(one, singles));

    const w1 = await build();
    const turns: string[][] = [];
    for (let i = 0; i < 12; i++) turns.push((await lanes.wclaim(w1, { leaseMs: 60_000 })).map((j) => j.group));
    const w2 = await build();
    const batched = (await lanes.wclaimMany(w2, 12, { leaseMs: 60_000 })).turns.map((t) => t.map((j) => j.group));
    expect(batched).toEqual(turns);
    // wclaim serves K = min(weight, depth, room) heads of the lane it lands on, as always.
    expect(turns.filter((t) => t[0] === 'c').every((t) => t.length === 2)).toBe(true);
  });

  it('tenants are charged at their own level: a tenant spreading cost-1 jobs over 4 lanes gets the work of a one-lane tenant', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    for (const g of ['a0', 'a1', 'a2', 'a3']) await fill(q, g, 100, 1, 'A');
    await fill(q, 'b0', 40, 10, 'B');
    const work = { A: 0, B: 0 } as Record<string, number>;
    for (let i = 0; i < 300; i++) {
      const job = (await lanes.claim(q))!;
      work[job.group.startsWith('a') ? 'A' : 'B'] += job.group.startsWith('a') ? 1 : 10;
      await lanes.complete(q, job.id, job.attempt);
      expect(Math.abs(work.A - work.B)).toBeLessThanOrEqual(10);
    }
  });

  it('changing the mode while jobs are pending loses and reorders nothing, and takes effect at the next claim', async () => {
    const q = queues.queue();
    const ids: Record<string, string[]> = {};
    for (const [g, t] of [['a', undefined], ['b', undefined], ['c', 'T'], ['d', 'T']] as const) ids[g] = await fill(q, g, 30, g === 'a' ? 5 : 1, t);
    const served: LaneJob[] = [];
    const modes: FairnessBy[] = ['cost', 'jobs', 'time', 'cost', 'jobs', 'cost'];
    for (let round = 0; served.length < 120; round++) {
      await lanes.fairness(q, { by: modes[round % modes.length] });
      expect((await lanes.stats(q)).fairness.by).toBe(modes[round % modes.length]);
      for (let i = 0; i < 7; i++) {
        const job = await lanes.claim(q);
        if (!job) break;
        served.push(job);
        await lanes.complete(q, job.id, job.attempt);
      }
    }
    expect(await lanes.claim(q)).toBeNull();
    for (const g of Object.keys(ids)) expect(served.filter((j) => j.group === g).map((j) => j.id)).toEqual(ids[g]);
    expect(new Set(served.map((j) => j.id)).size).toBe(120);
  });

  it('a change from jobs into cost keeps the rotation\'s order: the lane just served is not served again before the others', async () => {
    const q = queues.queue();
    const names = Array.from({ length: 30 }, (_, i) => `lane-${String(i).padStart(2, '0')}`);
    for (const g of names) await fill(q, g, 3, 1);
    // NOTE: in 'jobs' the first claims serve lane-00..lane-09, which go to the ring's tail.
    const first: string[] = [];
    for (let i = 0; i < 10; i++) first.push((await lanes.claim(q))!.group);
    expect(first).toEqual(names.slice(0, 10));
    await lanes.fairness(q, { by: 'cost' });
    const next: string[] = [];
    for (let i = 0; i < 30; i++) next.push((await lanes.claim(q))!.group);
    expect(next).toEqual([...names.slice(10), ...names.slice(0, 10)]);
  });

  it('position() in cost: ahead counts the jobs the costs put first (lane A of 100 jobs of cost 1, lane B of 5 of cost 10)', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'A', 100, 1);
    const b = await fill(q, 'B', 5, 10);
    const at = await lanes.position(q, b[2]);
    const before = await servedBefore(q, b[2]);
    expect(at).toMatchObject({ laneRank: 2, ahead: before, exact: true });
  });

  it('position() in cost past its reads of rows: an upper bound, exact false', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'cost' });
    await fill(q, 'A', 1_300, 1);
    const b = await fill(q, 'B', 120, 10);
    const at = (await lanes.position(q, b[110]))!;
    const before = await servedBefore(q, b[110]);
    expect(at.exact).toBe(false);
    expect(at.ahead).toBeGreaterThanOrEqual(before);
    expect(at.ahead).toBeLessThanOrEqual(before + 2);
  });

  it('position() in cost, over random plans of costs and weights: ahead is exact when it says so, else no less than what comes first', async () => {
    const PLAN = fc.array(fc.record({ weight: fc.integer({ min: 1, max: 3 }), costs: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 8 }) }),
      { minLength: 2, maxLength: 5 });
    await fc.assert(fc.asyncProperty(PLAN, fc.nat(), fc.integer({ min: 0, max: 6 }), async (plan, pick, warm) => {
      const q = queues.queue();
      await lanes.fairness(q, { by: 'cost' });
      const ids: string[] = [];
      for (const [i, lane] of plan.entries()) {
        if (lane.weight > 1) await lanes.weight(q, `l${i}`, lane.weight);
        ids.push(...await lanes.submitMany(q, lane.costs.map((cost) => ({ group: `l${i}`, payload: {}, opts: { cost } }))));
      }
      // NOTE: a few claims first, so the lanes' starts differ.
      const served = new Set<string>();
      for (let i = 0; i < warm; i++) {
        const job = await lanes.claim(q);
        if (!job) break;
        served.add(job.id);
        await lanes.complete(q, job.id, job.attempt);
      }
      const waiting = ids.filter((id) => !served.has(id));
      if (waiting.length === 0) return;
      const target = waiting[pick % waiting.length];
      const at = (await lanes.position(q, target))!;
      const before = await servedBefore(q, target);
      if (at.exact) expect(at.ahead).toBe(before);
      else expect(at.ahead).toBeGreaterThanOrEqual(before);
    }), { numRuns: 60, seed: 20261207 });
  });

  it('time: a reaped lease is charged its lease, a hand-back the time it was held', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    await lanes.fairness(q, { by: 'time' });
    await fill(q, 'a', 5);
    await fill(q, 'b', 5);
    const startOf = async (g: string) => Number(await client.zscore(k.ring + ':vt', g));
    const held = (await lanes.claim(q, { leaseMs: 150 }))!;
    const before = await startOf(held.group);
    await sleep(250);
    expect(await lanes.reap(q)).toBe(1);
    // The claim charged an estimate (1 ms, nothing measured yet); the reap the rest of the 150 ms lease.
    expect((await startOf(held.group)) - before).toBeGreaterThanOrEqual(145);
    expect((await startOf(held.group)) - before).toBeLessThanOrEqual(155);
    const other = held.group === 'a' ? 'b' : 'a';
    const at = await startOf(other);
    // Its claim charges an estimate (the queue's mean so far); the hand-back corrects it to the time held.
    const job = (await lanes.claim(q))!;
    expect(job.group).toBe(other);
    await sleep(60);
    expect(await lanes.release(q, job.id, job.attempt)).toBe(true);
    const charged = (await startOf(other)) - at;
    expect(charged).toBeGreaterThanOrEqual(55);
    expect(charged).toBeLessThanOrEqual(120);
  });

  it('time: lanes share the held time, not the turns (one claimer, holds of 30 ms and 3 ms)', async () => {
    const q = queues.queue();
    await lanes.fairness(q, { by: 'time' });
    await fill(q, 'slow', 200);
    await fill(q, 'fast', 400);
    const heldMs = { slow: 0, fast: 0 } as Record<string, number>;
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      const job = (await lanes.claim(q))!;
      const t0 = Date.now();
      await sleep(job.group === 'slow' ? 30 : 3);
      await lanes.complete(q, job.id, job.attempt);
      heldMs[job.group] += Date.now() - t0;
    }
    const share = heldMs.slow / (heldMs.slow + heldMs.fast);
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.65);
  });

  it('is work-conserving: a paused, full or rate-parked lane never blocks the others, in cost or time', async () => {
    for (const by of ['cost', 'time'] as const) {
      const q = queues.queue();
      await lanes.fairness(q, { by });
      await fill(q, 'a', 5, 3);
      await fill(q, 'b', 5, 3);
      await fill(q, 'c', 5, 3);
      await lanes.pause(q, 'a');
      await lanes.limit(q, 'b', 1);
      await lanes.rate(q, 'c', { max: 1, perMs: 60_000 });
      const got = (await lanes.claimMany(q, 10, { leaseMs: 60_000 })).jobs.map((j) => j.group).sort();
      expect(got).toEqual(['b', 'c']);
      expect(await lanes.claim(q)).toBeNull();
      await lanes.resume(q, 'a');
      expect((await lanes.claim(q))!.group).toBe('a');
    }
  });

  it('bad input: by, cost, and compat are refused naming the argument, and nothing is written', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', 1);
    const before = await snapshotAll(client);
    for (const by of ['fast', '', undefined, 1, null, 'JOBS']) {
      await expect(lanes.fairness(q, { by } as never)).rejects.toMatchObject({ argument: 'opts.by' });
    }
    await expect(lanes.fairness(q, 'cost' as never)).rejects.toMatchObject({ argument: 'opts' });
    for (const cost of [0, 1.5, -1, '3', NaN, 2e6, Infinity]) {
      await expect(lanes.submit(q, 'a', 1, { cost } as never)).rejects.toMatchObject({ argument: 'opts.cost' });
      await expect(lanes.submitMany(q, [{ group: 'a', payload: 1 }, { group: 'a', payload: 2, opts: { cost } as never }]))
        .rejects.toMatchObject({ argument: 'items[1].opts.cost' });
    }
    const compat = lanesOn(client, { compat: 'echomq' });
    for (const by of ['cost', 'time'] as const) {
      const err = await compat.fairness(q, { by }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EchoMqError);
      expect(err).toMatchObject({ code: 'MISCONFIGURED', argument: 'opts.by' });
    }
    expect(await snapshotAll(client)).toEqual(before);
    await compat.fairness(q, { by: 'jobs' });
    expect(await snapshotAll(client)).toEqual(before);
  });

  it('the scripts refuse a bad cost too (a caller that skips the checks)', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const before = await snapshotAll(client);
    for (const cost of ['0', '1.5', '-1', 'x', '1000001', '01']) {
      const job = { id: 'JOB00000000001', group: 'a', payload: '1', dedupKey: '', delayMs: 0, maxAttempts: 0, own: false, cost: cost as never };
      await expect(lanes['ctx'].scripts.submit(k, job)).rejects.toThrow(/cost/);
      await expect(lanes['ctx'].scripts.submitMany(k, [job])).rejects.toThrow(/cost/);
    }
    expect(await snapshotAll(client)).toEqual(before);
  });
});

describe('the bound of cost fairness over random plans (fast-check: a broken bound shrinks to its smallest plan)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let lanes: LanesService;
  beforeAll(() => {
    ({ lanes } = engine);
  });

  type Step = { form: 'claim' } | { form: 'claimMany'; n: number } | { form: 'wclaim' } | { form: 'wclaimMany'; turns: number };
  const STEP: fc.Arbitrary<Step> = fc.oneof(
    fc.constant({ form: 'claim' as const }),
    fc.record({ form: fc.constant('claimMany' as const), n: fc.integer({ min: 1, max: 5 }) }),
    fc.constant({ form: 'wclaim' as const }),
    fc.record({ form: fc.constant('wclaimMany' as const), turns: fc.integer({ min: 1, max: 3 }) }),
  );
  const LANE = fc.record({ weight: fc.integer({ min: 1, max: 4 }), costs: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 4 }) });

  it('after every call, the work ÷ weight of two lanes that stayed backlogged differs by at most the largest work ÷ weight of one turn', async () => {
    await fc.assert(fc.asyncProperty(fc.array(LANE, { minLength: 2, maxLength: 4 }), fc.array(STEP, { minLength: 1, maxLength: 25, size: 'max' }),
      fc.boolean(), async (plan, steps, byTenant) => {
        const q = queues.queue();
        await lanes.fairness(q, { by: 'cost' });
        const costOf = new Map<string, number>();
        const names = plan.map((_, i) => `l${i}`);
        // With byTenant every lane is its own tenant's only lane: the same bound one level up.
        for (const [i, lane] of plan.entries()) {
          const items = [...Array(160).keys()].map((j) => ({ group: names[i], payload: j,
            opts: { cost: lane.costs[j % lane.costs.length], ...(byTenant ? { tenant: `t${i}` } : {}) } }));
          const ids = await lanes.submitMany(q, items);
          ids.forEach((id, j) => costOf.set(id, items[j].opts.cost));
          if (byTenant) await lanes.tenantWeight(q, `t${i}`, lane.weight);
          else await lanes.weight(q, names[i], lane.weight);
        }
        const work = new Map(names.map((n) => [n, 0]));
        const count = new Map(names.map((n) => [n, 0]));
        // One turn's work ÷ weight: a claim serves one job (cost ÷ weight); a wclaim K ≤ weight heads
        // of its lane (at most the largest cost), or with byTenant one head per turn of the tenant.
        const usesW = steps.some((s) => s.form === 'wclaim' || s.form === 'wclaimMany');
        const bound = Math.max(...plan.map((l) => Math.max(...l.costs) / (usesW ? 1 : l.weight)));
        for (const step of steps) {
          let jobs: LaneJob[] = [];
          if (step.form === 'claim') jobs = [(await lanes.claim(q))!];
          else if (step.form === 'claimMany') jobs = (await lanes.claimMany(q, step.n)).jobs;
          else if (step.form === 'wclaim') jobs = await lanes.wclaim(q);
          else jobs = (await lanes.wclaimMany(q, step.turns)).turns.flat();
          for (const j of jobs) {
            work.set(j.group, work.get(j.group)! + costOf.get(j.id)!);
            count.set(j.group, count.get(j.group)! + 1);
            await lanes.complete(q, j.id, j.attempt);
          }
          // Only while every lane is still backlogged (160 jobs each, a plan takes far fewer).
          expect([...count.values()].every((c) => c < 160)).toBe(true);
          const norm = plan.map((l, i) => work.get(names[i])! / l.weight);
          expect(Math.max(...norm) - Math.min(...norm)).toBeLessThanOrEqual(bound + 1e-9);
        }
        await queues.dropAll(engine.client);
      }), { numRuns: Number(process.env.ECHOMQ_PLANS ?? 30), seed: Number(process.env.ECHOMQ_SEED ?? 20261202), endOnFailure: false });
  }, 300_000);
});

describe('the bound of cost fairness with pauses, ceilings and tenants of many lanes (fast-check)', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let lanes: LanesService;
  beforeAll(() => {
    ({ lanes } = engine);
  });

  /**
   * An entry of the queue's ring: a lane of no tenant (its own weight), or a tenant of 1..3 lanes
   * (the tenant's weight; its lanes weight 1). Some lanes have a ceiling of 1, which a held job fills.
   */
  const ENTRY = fc.record({
    weight: fc.integer({ min: 1, max: 4 }),
    lanes: fc.array(fc.record({ costs: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 3 }), ceiling: fc.boolean() }),
      { minLength: 1, maxLength: 3 }),
    tenant: fc.boolean(),
  });
  type Step = { op: 'claim' } | { op: 'hold' } | { op: 'release' } | { op: 'pause' | 'resume'; entry: number; lane: number };
  const STEP: fc.Arbitrary<Step> = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ op: 'claim' as const }) },
    { weight: 1, arbitrary: fc.constant({ op: 'hold' as const }) },
    { weight: 1, arbitrary: fc.constant({ op: 'release' as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('pause' as const, 'resume' as const), entry: fc.nat(3), lane: fc.nat(2) }) },
  );
  const DEPTH = 120;

  it('two entries (and two lanes of one tenant) that stayed serviceable differ in work ÷ weight by at most 2c over the stretch, c the largest of one turn', async () => {
    await fc.assert(fc.asyncProperty(fc.array(ENTRY, { minLength: 2, maxLength: 4 }), fc.array(STEP, { minLength: 1, maxLength: 60, size: 'max' }),
      async (plan, steps) => {
        const q = queues.queue();
        await lanes.fairness(q, { by: 'cost' });
        // The model: every lane's name, entry, ceiling, and what the test knows of its state.
        type Lane = { name: string; entry: number; ceiling: boolean; paused: boolean; held: LaneJob[] };
        const all: Lane[] = [];
        const costOf = new Map<string, number>();
        for (const [e, entry] of plan.entries()) {
          const tenant = entry.tenant || entry.lanes.length > 1 ? `t${e}` : undefined;
          for (const [i, lane] of entry.lanes.entries()) {
            const name = `e${e}-l${i}`;
            const items = [...Array(DEPTH).keys()].map((j) => ({ group: name, payload: j,
              opts: { cost: lane.costs[j % lane.costs.length], ...(tenant ? { tenant } : {}) } }));
            (await lanes.submitMany(q, items)).forEach((id, j) => costOf.set(id, items[j].opts.cost));
            if (lane.ceiling) await lanes.limit(q, name, 1);
            if (!tenant) await lanes.weight(q, name, entry.weight);
            all.push({ name, entry: e, ceiling: lane.ceiling, paused: false, held: [] });
          }
          if (tenant) await lanes.tenantWeight(q, tenant, entry.weight);
        }
        const byName = new Map(all.map((l) => [l.name, l]));
        const laneServiceable = (l: Lane) => !l.paused && !(l.ceiling && l.held.length > 0);
        const entryServiceable = (e: number) => all.some((l) => l.entry === e && laneServiceable(l));
        // One turn of an entry serves one head of one of its lanes: c is the largest cost ÷ the entry's weight.
        const c = Math.max(...plan.map((entry) => Math.max(...entry.lanes.flatMap((l) => l.costs)) / entry.weight));
        const laneC = Math.max(...plan.flatMap((entry) => entry.lanes.flatMap((l) => l.costs)));
        const work = new Map(all.map((l) => [l.name, 0]));
        const served = new Map(all.map((l) => [l.name, 0]));
        const entryWork = (e: number) => all.filter((l) => l.entry === e).reduce((s, l) => s + work.get(l.name)!, 0) / plan[e].weight;
        // The stretch: from the last step that changed what is serviceable, the entries and lanes
        // serviceable at the end of every step since, and their work when it began.
        let base = { entries: new Map<number, number>(), lanes: new Map<string, number>() };
        const mark = () => {
          base = {
            entries: new Map(plan.flatMap((_, e) => (entryServiceable(e) ? [[e, entryWork(e)] as [number, number]] : []))),
            lanes: new Map(all.filter(laneServiceable).map((l) => [l.name, work.get(l.name)!])),
          };
        };
        mark();
        for (const step of steps) {
          if (step.op === 'claim' || step.op === 'hold') {
            const job = await lanes.claim(q);
            // Work-conserving: nothing served only when the model has no serviceable entry.
            expect(job === null).toBe(!plan.some((_, e) => entryServiceable(e)));
            if (!job) continue;
            work.set(job.group, work.get(job.group)! + costOf.get(job.id)!);
            served.set(job.group, served.get(job.group)! + 1);
            if (step.op === 'hold') byName.get(job.group)!.held.push(job);
            else expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
            if (step.op === 'hold') mark();
          } else if (step.op === 'release') {
            for (const l of all) for (const j of l.held.splice(0)) expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
            mark();
          } else {
            const lane = all.filter((l) => l.entry === step.entry % plan.length)[step.lane % plan[step.entry % plan.length].lanes.length];
            if (step.op === 'pause') await lanes.pause(q, lane.name);
            else await lanes.resume(q, lane.name);
            lane.paused = step.op === 'pause';
            mark();
          }
          // Every lane is still backlogged (DEPTH each; a plan serves far fewer).
          expect(all.every((l) => served.get(l.name)! < DEPTH)).toBe(true);
          for (const e of [...base.entries.keys()]) if (!entryServiceable(e)) base.entries.delete(e);
          for (const n of [...base.lanes.keys()]) if (!laneServiceable(byName.get(n)!)) base.lanes.delete(n);
          const grown = [...base.entries].map(([e, w0]) => entryWork(e) - w0);
          if (grown.length > 1) expect(Math.max(...grown) - Math.min(...grown)).toBeLessThanOrEqual(2 * c + 1e-9);
          // Inside a tenant its lanes (weight 1) share its turns by the same rule, one level down.
          for (const e of plan.keys()) {
            const inside = [...base.lanes].filter(([n]) => byName.get(n)!.entry === e).map(([n, w0]) => work.get(n)! - w0);
            if (inside.length > 1) expect(Math.max(...inside) - Math.min(...inside)).toBeLessThanOrEqual(2 * laneC + 1e-9);
          }
        }
        await queues.dropAll(engine.client);
      }), { numRuns: Number(process.env.ECHOMQ_PLANS ?? 40), seed: Number(process.env.ECHOMQ_SEED ?? 20261206), endOnFailure: false });
  }, 300_000);
});
