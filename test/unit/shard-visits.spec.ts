import fc from 'fast-check';
import { CHUNK_SHARE, DRY_REVISIT_MS, ShardVisits } from '../../lib/shards/shard-visits';

const none = new Set<number>();

describe('ShardVisits (how claims are spread over a sharded queue\'s shards)', () => {
  it('splits slots in proportion to the shards\' rings, within one chunk over any run of calls (chunks of 1 and 16)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }),
      fc.constantFrom(1, 16), (rings, calls, phase, chunk) => {
        fc.pre(rings.some((r) => r > 0));
        const v = new ShardVisits(rings.length, () => phase);
        rings.forEach((r, i) => v.saw(i, 1, 1, r, 0));
        const got = new Array<number>(rings.length).fill(0);
        let slots = 0;
        for (const count of calls) {
          const plan = v.plan(count, none, 0, chunk);
          // A call visits a shard once, with whole chunks but for one (what is left of the call).
          expect([...plan.values()].reduce((x, y) => x + y, 0)).toBe(count);
          expect(plan.size).toBeLessThanOrEqual(Math.ceil(count / chunk));
          for (const [i, n] of plan) got[i] += n;
          slots += count;
        }
        const total = rings.reduce((a, b) => a + b, 0);
        rings.forEach((r, i) => {
          expect(Math.abs(got[i] - (slots * r) / total)).toBeLessThanOrEqual(chunk + 0.0001);
          if (r === 0) expect(got[i]).toBe(0);
        });
      }));
  });

  it('leaves out the shards a call already asked, and tries them all when every one left looks empty', () => {
    const v = new ShardVisits(4, () => 0);
    [5, 0, 0, 0].forEach((r, i) => v.saw(i, 1, 1, r, 1_000));
    expect([...v.plan(3, none, 1_000)]).toEqual([[0, 3]]);
    const rest = v.plan(3, new Set([0]), 1_000, 1);
    expect([...rest.keys()].sort()).toEqual([1, 2, 3]);
    expect([...rest.values()].reduce((a, b) => a + b, 0)).toBe(3);
    expect(v.plan(3, new Set([0, 1, 2, 3]), 1_000).size).toBe(0);
  });

  it('an empty shard gets no slot, is due a look at its ring DRY_REVISIT_MS later (or at once after a wake token), and is weighed by what the look saw', () => {
    const v = new ShardVisits(2, () => 0);
    v.saw(0, 1, 1, 10, 0);
    v.saw(1, 5, 0, -1, 0);
    const slotsOf = (now: number): number => [...v.plan(100, none, now, 1)].find(([i]) => i === 1)?.[1] ?? 0;
    expect(slotsOf(DRY_REVISIT_MS - 1)).toBe(0);
    expect(v.due(DRY_REVISIT_MS - 1)).toEqual([]);
    expect(v.due(DRY_REVISIT_MS)).toEqual([1]);
    expect(v.due(DRY_REVISIT_MS + 1)).toEqual([]);
    v.saw(1, 0, 0, 0, DRY_REVISIT_MS + 1);
    expect(v.due(DRY_REVISIT_MS + 2)).toEqual([]);
    v.woke(1);
    expect(v.due(DRY_REVISIT_MS + 2)).toEqual([1]);
    v.saw(1, 0, 0, 10, DRY_REVISIT_MS + 3);
    expect(slotsOf(DRY_REVISIT_MS + 3)).toBe(50);
  });

  it('cuts a call into chunks of about the lanes ÷ (CHUNK_SHARE × shards): whole calls over many lanes, single slots over few', () => {
    const many = new ShardVisits(6, () => 0);
    for (let i = 0; i < 6; i++) many.saw(i, 1, 1, 175, 0);
    expect(many.plan(32, none, 0).size).toBe(1);
    const few = new ShardVisits(6, () => 0);
    for (let i = 0; i < 6; i++) few.saw(i, 1, 1, 3, 0);
    const plan = few.plan(32, none, 0);
    expect(plan.size).toBe(6);
    expect([...plan.values()].reduce((a, b) => a + b, 0)).toBe(32);
    const some = new ShardVisits(6, () => 0);
    for (let i = 0; i < 6; i++) some.saw(i, 1, 1, 40, 0);
    expect([...some.plan(30, none, 0).values()].every((n) => n % Math.floor((6 * 40) / (CHUNK_SHARE * 6)) === 0)).toBe(true);
  });

  it('processes with different phases start on different shards', () => {
    const firsts = new Set<number>();
    for (let p = 1; p <= 8; p++) {
      let x = p * 7_919;
      const v = new ShardVisits(8, () => (x = (x * 48_271) % 2_147_483_647) / 2_147_483_647);
      firsts.add([...v.plan(1, none, 0).keys()][0]);
    }
    expect(firsts.size).toBeGreaterThanOrEqual(3);
  });
});
