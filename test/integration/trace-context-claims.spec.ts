import type IORedis from 'ioredis';
import { mintJobId } from '../../lib/ids/job-id';
import type { LanesService } from '../../lib/lanes.service';
import { jobTraceContext } from '../../lib/tracing/job-trace-context';
import { engineFixture, keysOf } from '../support/engine';
import { ForeignWriter } from '../support/foreign-writer';

const TC = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * A claim reply carries { last_error, tc } in a traced job's last_error place; the reply mapper
 * reads both, and a payload that is not JSON is still dead-lettered whether or not its row has a tc.
 */
describe('trace contexts in claim replies', () => {
  const engine = engineFixture();
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  let foreign: ForeignWriter;
  beforeAll(() => {
    ({ client, lanes } = engine);
    foreign = new ForeignWriter(client);
  });

  it('a traced job comes with its trace context and its last error; an untraced one with neither; a bad payload with a tc is buried', async () => {
    const q = queues.queue();
    const k = keysOf(q);
    const traced = await lanes.submit(q, 'a', { i: 1 });
    await client.hset(k.job(traced), 'tc', TC, 'last_error', 'earlier failure');
    const plain = await lanes.submit(q, 'b', { i: 2 });
    const bad = mintJobId();
    await foreign.enqueue(q, 'c', bad, 'not json {');
    await client.hset(k.job(bad), 'tc', TC);

    const { jobs } = await lanes.claimMany(q, 3);
    expect(jobs.map((j) => j.id)).toEqual([traced, plain]);
    const [a, b] = jobs;
    expect(a).toMatchObject({ payload: { i: 1 }, lastError: 'earlier failure' });
    expect(jobTraceContext(a)).toBe(TC);
    expect(b.lastError).toBeUndefined();
    expect(jobTraceContext(b)).toBeUndefined();
    expect(await lanes.dead(q)).toEqual([expect.objectContaining({ id: bad, payload: 'not json {', lastError: 'payload is not JSON' })]);
  });
});
