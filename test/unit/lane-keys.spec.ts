import calculateSlot from 'cluster-key-slot';
import { LaneKeys, nodeLeaseKey } from '../../lib/redis/lane-keys';
import { mintJobId } from '../../lib/ids/job-id';

const ODD_QUEUES = ['q', 'cm', 'with space', 'a:b:c', 'x*y?[z]\\', 'ünïcødé', '🚀rocket', 'g:x:pending', 'job:', '-', '0',
  'x'.repeat(200), 'é'.repeat(100), 'tab-free/slash', '"quoted"'];
const ODD_GROUPS = ['g', 'PLR0000000001a', 'a:b', 'x.y', ':pending', 'g:', '*', '[a-z]', 'ü', '🙂', ' ', 'x'.repeat(200)];

/** Every key a queue's scripts touch: the fixed ones, lanes and job rows. */
function everyKey(k: LaneKeys): string[] {
  const fixed = [k.ring, k.ringSet, k.weight, k.limit, k.active, k.gactive, k.paused, k.schedule, k.dead, k.wake, k.dedup, k.stats,
    k.rate, k.pauseInfo, k.timers, k.meta, k.flatPending];
  return [...fixed, ...ODD_GROUPS.map((g) => k.lane(g)), ...ODD_GROUPS.map((g) => k.rateLog(g)), k.job(mintJobId()), k.job('JOB00000000000')];
}

describe('LaneKeys', () => {
  it('builds the contract keyspace: emq:{q}:…', () => {
    const k = new LaneKeys('emq', 'cm');
    expect(k.base).toBe('emq:{cm}:');
    expect({
      ring: k.ring, ringSet: k.ringSet, weight: k.weight, limit: k.limit, active: k.active, gactive: k.gactive,
      paused: k.paused, schedule: k.schedule, dead: k.dead, wake: k.wake, dedup: k.dedup, stats: k.stats,
    }).toEqual({
      ring: 'emq:{cm}:ring', ringSet: 'emq:{cm}:ringset', weight: 'emq:{cm}:gweight', limit: 'emq:{cm}:glimit',
      active: 'emq:{cm}:active', gactive: 'emq:{cm}:gactive', paused: 'emq:{cm}:paused', schedule: 'emq:{cm}:schedule',
      dead: 'emq:{cm}:dead', wake: 'emq:{cm}:wake', dedup: 'emq:{cm}:dedup', stats: 'emq:{cm}:stats',
    });
    expect(k.lane('PLR1')).toBe('emq:{cm}:g:PLR1:pending');
    expect([k.rate, k.pauseInfo, k.timers, k.rateLog('PLR1')]).toEqual(['emq:{cm}:grate', 'emq:{cm}:gpause', 'emq:{cm}:timers', 'emq:{cm}:g:PLR1:rate']);
    expect(k.job('JOB00000000001')).toBe('emq:{cm}:job:JOB00000000001');
    expect([k.meta, k.flatPending]).toEqual(['emq:{cm}:meta', 'emq:{cm}:pending']);
    expect(new LaneKeys('other', 'cm').ring).toBe('other:{cm}:ring');
    expect(nodeLeaseKey('emq')).toBe('emq:node-leases');
  });

  it.each(ODD_QUEUES.map((q) => [q.length > 20 ? `${q.slice(0, 3)}… (${Buffer.byteLength(q)} bytes)` : q, q]))('every key of queue %j hashes to one slot, the slot of its tag', (_label, queue) => {
    for (const prefix of ['emq', 'my:app', 'p-1']) {
      const k = new LaneKeys(prefix, queue);
      const slot = calculateSlot(queue);
      for (const key of everyKey(k)) expect({ key, slot: calculateSlot(key) }).toEqual({ key, slot });
      expect(calculateSlot.generateMulti(everyKey(k))).toBe(slot);
    }
  });

  it('every key starts with the base the scripts derive lane and job keys from', () => {
    for (const queue of ODD_QUEUES) {
      const k = new LaneKeys('emq', queue);
      for (const key of everyKey(k)) expect(key.startsWith(k.base)).toBe(true);
    }
  });

  it('lane keys of distinct groups are distinct and never collide with a fixed key', () => {
    const k = new LaneKeys('emq', 'q');
    const lanes = ODD_GROUPS.map((g) => k.lane(g));
    expect(new Set(lanes).size).toBe(lanes.length);
    const fixed = new Set([k.ring, k.ringSet, k.weight, k.limit, k.active, k.gactive, k.paused, k.schedule, k.dead, k.wake, k.dedup, k.stats]);
    for (const lane of lanes) expect(fixed.has(lane)).toBe(false);
  });

  it('pattern() matches only the queue, with glob characters escaped', () => {
    expect(new LaneKeys('emq', 'q').pattern()).toBe('emq:{q}:*');
    expect(new LaneKeys('emq', 'a*b?[c]\\').pattern()).toBe('emq:{a\\*b\\?\\[c\\]\\\\}:*');
  });
});
