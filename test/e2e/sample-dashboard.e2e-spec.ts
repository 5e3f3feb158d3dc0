import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../../sample/app.module';
import { DASHBOARD_TOKEN, dashboardLink } from '../../sample/dashboard-token.guard';
import { TestRedisServer } from '../support/redis-server';

describe('sample app: the dashboard at /echomq', () => {
  let server: TestRedisServer;
  let app: INestApplication;
  const savedUrl = process.env.REDIS_URL;

  beforeAll(async () => {
    server = await TestRedisServer.start();
    process.env.REDIS_URL = server.url;
    const mod = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = mod.createNestApplication({ logger: ['error'] });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await server.stop();
    if (savedUrl === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = savedUrl;
  });

  it('is writable behind the start-up token, and shows the game\'s queue', async () => {
    const http = request(app.getHttpServer());
    expect(dashboardLink('http://localhost:3000')).toBe(`http://localhost:3000/echomq?token=${encodeURIComponent(DASHBOARD_TOKEN)}`);
    expect((await http.get('/echomq/api/config')).status).toBe(403);
    expect((await http.get('/echomq/api/config?token=wrong')).status).toBe(403);
    const config = await http.get(`/echomq/api/config?token=${encodeURIComponent(DASHBOARD_TOKEN)}`);
    expect(config.body).toEqual({ queues: ['cm'], readOnly: false, actionHeader: 'x-echomq-action' });
    const paused = await http.post(`/echomq/api/pause?token=${encodeURIComponent(DASHBOARD_TOKEN)}`)
      .set('x-echomq-action', '1').send({ queue: 'cm', group: 'ana' });
    expect(paused.body).toMatchObject({ group: 'ana', paused: true, inRing: false });
    expect((await http.get('/echomq/')).status).toBe(200);
  });
});
