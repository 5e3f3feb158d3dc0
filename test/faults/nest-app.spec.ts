import { Injectable } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { LaneConsumer, LaneJob, LanesService, mintJobId } from '../../lib';
import { TestRedisServer } from '../support/redis-server';
import { bootApp, until } from '../support/nest';
import { pause, report } from './support/wait';

/** The library's own claim loops (a real Nest app), not a test loop, through server faults. */

const handled = new Map<string, number>();

@LaneConsumer('fault-app', { concurrency: 8, leaseMs: 1_000 })
@Injectable()
class AppWorker {
  async handle(job: LaneJob): Promise<void> {
    handled.set(job.id, (handled.get(job.id) ?? 0) + 1);
    await pause(1);
  }
}

/** Submits `ids` with their own job ids, retrying each until the server takes it (idempotent). */
async function submitAll(lanes: LanesService, ids: string[], paceEvery = 50): Promise<number> {
  let retries = 0;
  for (let i = 0; i < ids.length; i++) {
    for (;;) {
      try {
        await lanes.submit('fault-app', `tenant-${i % 10}`, { i }, { jobId: ids[i] });
        break;
      } catch {
        retries += 1;
        await pause(20);
      }
    }
    if (i % paceEvery === 0) await pause(2);
  }
  return retries;
}

describe('faults: a Nest app with a consumer', () => {
  let server: TestRedisServer;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    handled.clear();
    server = await TestRedisServer.start(['--appendonly', 'yes', '--appendfsync', 'always']);
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.stop();
  });

  const settled = async (lanes: LanesService, ids: string[]) => {
    await until(() => ids.every((id) => handled.has(id)), 30_000, 'every job handled');
    await until(async () => (await lanes.lanes('fault-app')).length === 0, 10_000, 'the lanes to drain and gactive to reach 0');
  };

  it('server SIGKILLed and restarted mid-load: nothing lost, and the loop resumes by itself', async () => {
    ({ app } = await bootApp(server.url, [AppWorker], { idleBlockMs: 500, maxAttempts: 10 }));
    const lanes = app.get(LanesService);
    const ids = Array.from({ length: 1_500 }, () => mintJobId());
    const producing = submitAll(lanes, ids);
    await until(() => handled.size >= 300, 20_000, '300 jobs handled');
    await server.kill('SIGKILL');
    await pause(200);
    await server.launch();
    const upAt = Date.now();
    const before = handled.size;
    await until(() => handled.size > before, 10_000, 'a job handled after the restart');
    const recoveryMs = Date.now() - upAt;
    const retries = await producing;
    await settled(lanes, ids);
    const twice = [...handled.values()].filter((n) => n > 1).length;
    report(`nest app, server restart: lost 0 of ${ids.length}; recovery ${recoveryMs} ms; handled twice ${twice}; producer retries ${retries}`);
    expect(ids.every((id) => handled.has(id))).toBe(true);
  });

  it('an idle consumer blocked on the wake list when the server dies is woken by a submit after the restart', async () => {
    ({ app } = await bootApp(server.url, [AppWorker], { idleBlockMs: 5_000 }));
    const lanes = app.get(LanesService);
    const probe = server.client();
    await until(async () => ((await probe.client('LIST')) as string).includes('cmd=brpop'), 5_000, 'the loop to block');
    probe.disconnect();
    await server.kill('SIGKILL');
    await server.launch();
    const t0 = Date.now();
    const id = await lanes.submit('fault-app', 'late', { after: 'restart' });
    await until(() => handled.has(id), 10_000, 'the job submitted after the restart');
    report(`nest app, idle through a restart: woken ${Date.now() - t0} ms after the submit`);
  });

  it('SCRIPT FLUSH, FUNCTION FLUSH and CLIENT KILL of every connection mid-load: work goes on, nothing lost', async () => {
    ({ app } = await bootApp(server.url, [AppWorker], { idleBlockMs: 500, maxAttempts: 10 }));
    const lanes = app.get(LanesService);
    const admin = server.client();
    const ids = Array.from({ length: 1_500 }, () => mintJobId());
    const producing = submitAll(lanes, ids);
    let kills = 0;
    for (let round = 0; round < 4; round++) {
      await until(() => handled.size >= 200 * (round + 1), 20_000, `${200 * (round + 1)} jobs handled`);
      await admin.script('FLUSH');
      await admin.call('FUNCTION', 'FLUSH');
      kills += Number(await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    }
    await producing;
    await settled(lanes, ids);
    await admin.quit();
    report(`nest app, SCRIPT FLUSH, FUNCTION FLUSH and CLIENT KILL x4 (${kills} connections): lost 0 of ${ids.length}`);
    expect(kills).toBeGreaterThan(0);
  });
});
