import * as jobIds from '../../lib/ids/job-id';
import { decodeJobId, isJobId, jobIdNode, mintJobId, setJobIdNode } from '../../lib/ids/job-id';

/** A freshly loaded copy of the module: its own clock state, untouched by other tests. */
function freshModule(): typeof jobIds {
  let mod: typeof jobIds | undefined;
  jest.isolateModules(() => {
    mod = jest.requireActual<typeof jobIds>('../../lib/ids/job-id');
  });
  return mod!;
}

const EPOCH_MS = Date.UTC(2024, 0, 1);

describe('job ids', () => {
  afterEach(() => jest.restoreAllMocks());

  it('are JOB followed by 11 base62 characters', () => {
    for (let i = 0; i < 1_000; i++) {
      const id = mintJobId();
      expect(id).toMatch(/^JOB[0-9A-Za-z]{11}$/);
      expect(id).toHaveLength(14);
      expect(isJobId(id)).toBe(true);
    }
  });

  it('isJobId refuses anything else', () => {
    for (const bad of ['', 'JOB', 'JOB123', 'job00000000000', 'JOB0000000000-', 'JOB000000000000', ' JOB00000000000',
      'JOB00000000000\n', 'JOB0000000000é', 5, null, undefined, {}, ['JOB00000000000']]) {
      expect(isJobId(bad)).toBe(false);
    }
    expect(isJobId('JOB00000000000')).toBe(true);
    // 11 base62 digits reach past 2^63: the snowflake's width bounds them (2^63 - 1 is JOBAzL8n0Y58m7).
    expect(isJobId('JOBAzL8n0Y58m7')).toBe(true);
    for (const past of ['JOBAzL8n0Y58m8', 'JOBB0000000000', 'JOBzzzzzzzzzzz']) expect(isJobId(past)).toBe(false);
  });

  it('are strictly increasing over 100,000 mints, in byte order', () => {
    let prev = mintJobId();
    for (let i = 0; i < 100_000; i++) {
      const next = mintJobId();
      if (!(next > prev) || Buffer.compare(Buffer.from(next), Buffer.from(prev)) <= 0) {
        throw new Error(`mint ${i}: ${next} does not sort after ${prev}`);
      }
      prev = next;
    }
  });

  it('stay increasing when more than 4,096 are minted in one millisecond (the next ms is borrowed)', () => {
    const frozen = Date.now() + 60_000;
    jest.spyOn(Date, 'now').mockReturnValue(frozen);
    const ids = [...Array(10_000)].map(() => mintJobId());
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
    const last = decodeJobId(ids[ids.length - 1]);
    expect(last.ms).toBeGreaterThan(frozen);
    expect(last.ms - frozen).toBeLessThanOrEqual(3);
  });

  it('stay increasing when the clock steps back', () => {
    const t = Date.now() + 120_000;
    const clock = jest.spyOn(Date, 'now').mockReturnValue(t);
    const a = mintJobId();
    clock.mockReturnValue(t - 10_000);
    const b = mintJobId();
    clock.mockReturnValue(t - 20_000);
    const c = mintJobId();
    clock.mockReturnValue(t + 1);
    const d = mintJobId();
    expect([a, b, c, d]).toEqual([a, b, c, d].slice().sort());
    expect(new Set([a, b, c, d]).size).toBe(4);
  });

  it('stay monotonic across setJobIdNode changes, down as well as up', () => {
    const start = jobIdNode();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 180_000);
    const ids: string[] = [mintJobId()];
    for (const node of [1023, 0, 512, 511, 1, 1023, 0]) {
      setJobIdNode(node);
      expect(jobIdNode()).toBe(node);
      ids.push(mintJobId(), mintJobId());
      expect(decodeJobId(ids[ids.length - 1]).node).toBe(node);
    }
    clock.mockRestore();
    for (const node of [7, 3]) {
      setJobIdNode(node);
      ids.push(mintJobId());
    }
    for (let i = 1; i < ids.length; i++) expect({ i, sorted: ids[i] > ids[i - 1] }).toEqual({ i, sorted: true });
    setJobIdNode(start);
  });

  it('setJobIdNode wraps into 0..1023 and ignores a no-op change', () => {
    const start = jobIdNode();
    setJobIdNode(1024);
    expect(jobIdNode()).toBe(0);
    setJobIdNode(-1);
    expect(jobIdNode()).toBe(1023);
    setJobIdNode(2048 + 5);
    expect(jobIdNode()).toBe(5);
    const a = mintJobId();
    setJobIdNode(5);
    const b = mintJobId();
    expect(b > a).toBe(true);
    setJobIdNode(start);
  });

  it('decodeJobId round-trips the time, the node and the sequence', () => {
    const { mintJobId, setJobIdNode } = freshModule();
    setJobIdNode(321);
    const before = Date.now();
    const id = mintJobId();
    const after = Date.now();
    const d = decodeJobId(id);
    expect(d.node).toBe(321);
    expect(d.ms).toBeGreaterThanOrEqual(before);
    expect(d.ms).toBeLessThanOrEqual(after + 2);
    expect(d.seq).toBeGreaterThanOrEqual(0);
    expect(d.seq).toBeLessThanOrEqual(4095);

    const next = decodeJobId(mintJobId());
    if (next.ms === d.ms) expect(next.seq).toBe(d.seq + 1);
    else expect(next.ms).toBeGreaterThan(d.ms);
  });

  it('decodeJobId reads the fixed points of the encoding', () => {
    expect(decodeJobId('JOB00000000000')).toEqual({ ms: EPOCH_MS, node: 0, seq: 0 });
    expect(decodeJobId('JOB00000000001')).toEqual({ ms: EPOCH_MS, node: 0, seq: 1 });
    // 4096 = 1·62² + 4·62 + 4 is the first id of node 1.
    expect(decodeJobId('JOB00000000144')).toEqual({ ms: EPOCH_MS, node: 1, seq: 0 });
    // 2^22 = 4,194,304 = 17·62³ + 37·62² + 8·62 + 4 is the first id of the next millisecond.
    expect(decodeJobId('JOB0000000Hb84')).toEqual({ ms: EPOCH_MS + 1, node: 0, seq: 0 });
  });
});
