import type IORedis from 'ioredis';
import { EchoMqError } from '../../lib/errors';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { LaneKeys } from '../../lib/redis/lane-keys';
import type { EchoMqModuleOptions } from '../../lib/interfaces';
import { dropQueue, lanesOn, testQueue } from './lanes';
import { TestRedisServer } from './redis-server';

/** The server's count of writes since its last save: any write moves it (how the bad-input tests see that nothing was written). */
export async function dirty(client: IORedis): Promise<number> {
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(await client.info('persistence'))![1]);
}

/** The EchoMqError that `p` rejects with; fails the test when it resolves or rejects with something else. */
export async function rejects(p: Promise<unknown>): Promise<EchoMqError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EchoMqError);
    return err as EchoMqError;
  }
  throw new Error('expected a rejection');
}

/** The server clock in ms, as the scripts read it (TIME). */
export async function serverTimeMs(client: IORedis): Promise<number> {
  const [s, us] = (await client.time()) as unknown as [string | number, string | number];
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Polls `probe` until it returns something truthy; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Waits until the server clock is strictly past `ms` (a lease deadline or a due time). */
export async function waitPastServerTime(client: IORedis, ms: number, timeoutMs = 5_000): Promise<void> {
  await waitFor(`server time past ${ms}`, async () => (await serverTimeMs(client)) > ms, timeoutMs);
}

/** Hands out unique queue names for a test file and deletes their keys afterwards. */
export class QueueTracker {
  private readonly made: string[] = [];

  /** A new queue name, remembered for {@link dropAll}. */
  queue(): string {
    const q = testQueue();
    this.made.push(q);
    return q;
  }

  /** Deletes every key of every queue handed out since the last call. */
  async dropAll(client: IORedis): Promise<void> {
    for (const q of this.made.splice(0)) await dropQueue(client, q);
  }
}

/** Keys of a queue under the default prefix. */
export const keysOf = (queue: string): LaneKeys => new LaneKeys('emq', queue);

/** Claims and completes until nothing is serviceable; returns the jobs in serve order. */
export async function drain(lanes: LanesService, queue: string, limit = 100_000): Promise<LaneJob[]> {
  const served: LaneJob[] = [];
  for (let i = 0; i < limit; i++) {
    const job = await lanes.claim(queue);
    if (!job) return served;
    served.push(job);
    if (!(await lanes.complete(queue, job.id, job.attempt))) throw new Error(`could not complete ${job.id}`);
  }
  throw new Error(`drain of ${queue} did not finish within ${limit} claims`);
}

/** `group` + the payload's `i`, for compact order assertions. */
export const tag = (job: LaneJob): string => `${job.group}${(job.payload as { i: number }).i}`;

/** Every key on the server with its type and contents (a test file's private server). */
export async function snapshotAll(client: IORedis): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of (await client.keys('*')).sort()) {
    const type = await client.type(key);
    if (type === 'hash') out[key] = await client.hgetall(key);
    else if (type === 'zset') out[key] = await client.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'list') out[key] = await client.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await client.smembers(key)).sort();
    else out[key] = await client.get(key);
  }
  return out;
}

/** What {@link engineFixture} gives a test file; fields are set before its first test runs. */
export interface EngineFixture {
  server: TestRedisServer;
  client: IORedis;
  lanes: LanesService;
  queues: QueueTracker;
}

/**
 * One private redis-server for a test file, started before its tests and stopped after them, with
 * a client and a LanesService on it; every queue handed out by `queues` is dropped after each test.
 */
export function engineFixture(options: EchoMqModuleOptions = {}): EngineFixture {
  const fixture = { queues: new QueueTracker() } as EngineFixture;
  beforeAll(async () => {
    fixture.server = await TestRedisServer.start();
    fixture.client = fixture.server.client();
    fixture.lanes = lanesOn(fixture.client, options);
  });
  afterEach(() => fixture.queues.dropAll(fixture.client));
  afterAll(async () => {
    await fixture.client.quit();
    await fixture.server.stop();
  });
  return fixture;
}
