import { EchoMqError } from '../../lib/errors';
import { fromServerError } from '../../lib/redis/server-errors';

/** What a failed call becomes: the refusals a caller can act on are EchoMqErrors with a code. */
describe('fromServerError', () => {
  it('a closed connection, and a Cluster that gave up after its redirections, are UNAVAILABLE naming the call and queue', () => {
    const closed = fromServerError('submit', 'q', 'emq', new Error('Connection is closed.'));
    expect(closed).toBeInstanceOf(EchoMqError);
    expect(closed).toMatchObject({ code: 'UNAVAILABLE', queue: 'q' });
    const cluster = fromServerError('submit', 'q', 'emq', new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'));
    expect(cluster).toBeInstanceOf(EchoMqError);
    expect(cluster).toMatchObject({ code: 'UNAVAILABLE', queue: 'q' });
    expect((cluster as Error).message).toContain('retry a submit with the same jobId');
    expect((cluster as Error).message).toContain('maxRedirections');
  });

  it('passes other connection errors through (ioredis retries those)', () => {
    const other = new Error('read ECONNRESET');
    expect(fromServerError('claim', 'q', 'emq', other)).toBe(other);
  });
});
