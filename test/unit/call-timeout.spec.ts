import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { EchoMqError } from '../../lib/errors';
import { withinCallTimeout } from '../../lib/redis/call-deadline';

/** The callTimeoutMs option and its bound (a timer around a pending reply; the server side is in test/faults/partition.spec.ts). */
describe('callTimeoutMs', () => {
  it('is off by default, and taken when it is an integer from 1 to 2^31 - 1', () => {
    expect(resolveEchoMqOptions({}).callTimeoutMs).toBeNull();
    expect(resolveEchoMqOptions({ callTimeoutMs: 250 }).callTimeoutMs).toBe(250);
    expect(resolveEchoMqOptions({ callTimeoutMs: 2 ** 31 - 1 }).callTimeoutMs).toBe(2 ** 31 - 1);
  });

  it.each([0, -1, 1.5, NaN, Infinity, '500', 2 ** 31, {}])('refuses %p, naming the option', (bad) => {
    let err: unknown;
    try {
      resolveEchoMqOptions({ callTimeoutMs: bad as number });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'callTimeoutMs' });
    expect((err as Error).message).toMatch(/^Invalid argument "callTimeoutMs": must be an integer from 1 to 2147483647/);
  });

  it('rejects an unanswered call with UNAVAILABLE, saying the write may stand, and hands a late reply to onLate', async () => {
    let answer!: (v: string) => void;
    const pending = new Promise<string>((resolve) => (answer = resolve));
    const late: string[] = [];
    const t0 = Date.now();
    const bounded = withinCallTimeout(pending, 50, 'submit', 'q1', { onLate: (r) => late.push(r) });
    const err = await bounded.catch((e: unknown) => e);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', queue: 'q1' });
    expect((err as Error).message).toBe(
      'EchoMQ submit on queue "q1" got no answer from the server within 50 ms (callTimeoutMs): the server is unreachable or stalled. '
      + 'The call is still queued on the connection, so a write may stand: retry a submit with the same jobId (it is not admitted twice); '
      + 'a claim answered late hands its jobs back.');
    answer('late reply');
    await new Promise((r) => setImmediate(r));
    expect(late).toEqual(['late reply']);
  });

  it('passes an answer in time through, and gives a server its own time on top (extraMs)', async () => {
    await expect(withinCallTimeout(Promise.resolve(7), 50, 'stats', 'q')).resolves.toBe(7);
    await expect(withinCallTimeout(Promise.reject(new Error('refused')), 50, 'stats', 'q')).rejects.toThrow('refused');
    const slow = new Promise((r) => setTimeout(() => r('waited'), 80));
    await expect(withinCallTimeout(slow, 20, 'submit', 'q', { extraMs: 200 })).resolves.toBe('waited');
    const unbounded = new Promise((r) => setTimeout(() => r('no bound'), 30));
    await expect(withinCallTimeout(unbounded, null, 'submit', 'q')).resolves.toBe('no bound');
  });
});
