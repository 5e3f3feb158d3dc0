import { Injectable } from '@nestjs/common';
import IORedis from 'ioredis';
import Valkey from 'iovalkey';
import { dirname, join } from 'path';
import { EchoMqModuleOptions, LaneConsumer, LaneJob, LanesService } from '../../lib';
import { bootApp, nestFixture, socketsTo, until } from '../support/nest';

/**
 * `connection` as a client the application made: an ioredis `Redis` (whichever major the jest project
 * runs: 5, or 6 in the ioredis6 project) or an iovalkey one. The module duplicates it for each of its
 * own connections and never closes it.
 */
const fixture = nestFixture();
const handled: LaneJob<{ n: number }>[] = [];

@LaneConsumer('clients')
@Injectable()
class DoubleWorker {
  async handle(job: LaneJob<{ n: number }>): Promise<number> {
    handled.push(job);
    return job.payload.n * 2;
  }
}

/** Runs one job through an app on `connection` and waits for its result; closes the app. */
async function roundTrip(connection: EchoMqModuleOptions['connection']): Promise<unknown> {
  const { app } = await bootApp(fixture.server.url, [DoubleWorker], { connection });
  const lanes = app.get(LanesService);
  const id = await lanes.submit('clients', 'g', { n: 21 });
  const info = await lanes.waitFor('clients', id, { timeoutMs: 20_000 });
  await app.close();
  return info?.result;
}

describe('connection: an existing client', () => {
  it('runs on the ioredis major this jest project names', () => {
    const expected = (globalThis as { EMQ_IOREDIS_MAJOR?: number }).EMQ_IOREDIS_MAJOR ?? 5;
    const pkg = require(join(dirname(require.resolve('ioredis')), '..', 'package.json')) as { version: string };
    expect(Number(pkg.version.split('.')[0])).toBe(expected);
  });

  it('duplicates an ioredis client it is given, and leaves it open at close', async () => {
    const own = new IORedis(fixture.server.url, { connectionName: 'the-apps-own' });
    await own.ping();
    try {
      expect(await roundTrip(own)).toBe(42);
      expect(own.status).toBe('ready');
      expect(await own.ping()).toBe('PONG');
      // Only the application's own socket is left: the module closed every duplicate it made.
      await until(() => socketsTo(fixture.server.port) === 1, 5_000, 'the module\'s sockets to close');
      const names = (await own.client('LIST') as string).split('\n').filter(Boolean).map((l) => /name=(\S*)/.exec(l)![1]);
      expect(names).toEqual(['the-apps-own']);
    } finally {
      await own.quit();
    }
  });

  it('runs on an iovalkey client (the Valkey fork of the driver), and leaves it open at close', async () => {
    const own = new Valkey(fixture.server.url);
    await own.ping();
    try {
      expect(await roundTrip(own)).toBe(42);
      expect(own.status).toBe('ready');
      expect(await own.ping()).toBe('PONG');
      await until(() => socketsTo(fixture.server.port) === 1, 5_000, 'the module\'s sockets to close');
    } finally {
      await own.quit();
    }
  });
});
