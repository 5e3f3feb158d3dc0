import IORedis from 'ioredis';
import { TestRedisServer } from '../support/redis-server';
import { lanesOn, testQueue } from '../support/lanes';

describe('smoke', () => {
  let server: TestRedisServer;
  let client: IORedis;
  beforeAll(async () => { server = await TestRedisServer.start(); client = server.client(); });
  afterAll(async () => { await client.quit(); await server.stop(); });

  it('rotates a, b, a, b', async () => {
    const lanes = lanesOn(client);
    const q = testQueue();
    for (let i = 0; i < 3; i++) { await lanes.submit(q, 'a', { i }); }
    for (let i = 0; i < 3; i++) { await lanes.submit(q, 'b', { i }); }
    const order: string[] = [];
    for (;;) {
      const j = await lanes.claim(q);
      if (!j) break;
      order.push(`${j.group}${(j.payload as any).i}`);
      expect(await lanes.complete(q, j.id, j.attempt)).toBe(true);
    }
    expect(order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    expect(await lanes.lanes(q)).toEqual([]);
  });
});
