import { Test } from '@nestjs/testing';
import { EchoMqModule, LanesService } from '../../lib';
import { PLAIN_QUEUE, PlainWorker, Recorder } from '../fixtures/consumers';
import { TestRedisServer } from '../support/redis-server';

describe('consumer smoke', () => {
  let server: TestRedisServer;
  beforeAll(async () => { server = await TestRedisServer.start(); });
  afterAll(async () => { await server.stop(); });

  it('handles submitted jobs and closes cleanly', async () => {
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: server.url })],
      providers: [Recorder, PlainWorker],
    }).compile();
    const app = mod.createNestApplication();
    await app.init();
    const lanes = app.get(LanesService);
    const rec = app.get(Recorder);
    for (let i = 0; i < 20; i++) await lanes.submit(PLAIN_QUEUE, `g${i % 3}`, { n: i });
    await rec.until(20);
    await app.close();
    expect(rec.handled).toHaveLength(20);
  });
});
