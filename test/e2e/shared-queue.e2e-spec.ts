import { Injectable } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService } from '../../lib';
import { mintJobId } from '../../lib/ids/job-id';
import { ForeignWriter } from '../support/foreign-writer';
import { bootApp, nestFixture, until } from '../support/nest';

const QUEUE = 'e2e-shared';
const handled: unknown[] = [];

@LaneConsumer(QUEUE, { concurrency: 4 })
@Injectable()
class SharedWorker {
  async handle(job: LaneJob): Promise<void> {
    handled.push(job.payload);
  }
}

describe('a consumer on a queue the EchoMQ reference writes too (compat mode)', () => {
  const fixture = nestFixture();

  it('serves both writers\' jobs, dead-letters a payload that is not JSON, and holds a queue-wide pause', async () => {
    const { app } = await bootApp(fixture.server.url, [SharedWorker], { compat: 'echomq' });
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    const client = fixture.server.client();
    try {
      const foreign = new ForeignWriter(client);
      for (let i = 0; i < 10; i++) {
        await lanes.submit(QUEUE, `g${i % 3}`, { ours: i });
        await foreign.enqueue(QUEUE, `g${i % 4}`, mintJobId(), JSON.stringify({ theirs: i }));
      }
      await foreign.enqueue(QUEUE, 'g1', mintJobId(), 'not json');
      await until(() => handled.length === 20, 10_000, 'all 20 good jobs');
      await until(async () => (await lanes.dead(QUEUE)).length === 1, 5_000, 'the bad job in the dead set');
      expect((await lanes.dead(QUEUE))[0]).toMatchObject({ group: 'g1', payload: 'not json', lastError: 'payload is not JSON' });

      await foreign.pauseQueue(QUEUE);
      await lanes.submit(QUEUE, 'g0', { late: true });
      // A submit to a paused queue pushes no wake token: the consumer stays blocked.
      await until(async () => (await client.llen(lanes.keysOf(QUEUE).wake)) === 0
        && Number(/blocked_clients:(\d+)/.exec(await client.info('clients'))?.[1] ?? 0) >= 1, 5_000, 'the consumer to claim and block again');
      expect(handled).toHaveLength(20);
      expect((await lanes.stats(QUEUE)).paused).toBe(true);
      await lanes.resumeQueue(QUEUE);
      await until(() => handled.length === 21, 5_000, 'the job submitted while paused');
    } finally {
      await client.quit();
    }
  });
});
