import { Controller, Get, INestApplication, Injectable, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { EchoMqModule, LaneConsumer, LanesService } from '../../lib';
import { EchoMqHealthIndicator } from '../../lib/health';
import { echoMqAclRules } from '../../lib/redis/acl';
import { CapturingLogger, until } from '../support/nest';
import { TestRedisServer } from '../support/redis-server';

@LaneConsumer('health-q', { leaseMs: 200 })
@Injectable()
class HealthWorker {
  async handle(): Promise<void> {}
}

@Controller('health')
class HealthController {
  constructor(private readonly health: HealthCheckService, private readonly echomq: EchoMqHealthIndicator) {}
  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.echomq.isHealthy()]);
  }
}

@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [EchoMqHealthIndicator] })
class HealthModule {}

describe('EchoMqHealthIndicator (terminus)', () => {
  let server: TestRedisServer;
  let app: INestApplication | undefined;
  beforeAll(async () => {
    server = await TestRedisServer.start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(async () => {
    await server.stop();
  });

  async function boot(url: string): Promise<INestApplication> {
    const logger = new CapturingLogger();
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: url, logger }), HealthModule],
      providers: [HealthWorker],
    }).compile();
    app = mod.createNestApplication({ logger });
    await app.init();
    return app;
  }

  it('is up when the server answers and the loops claim', async () => {
    const a = await boot(server.url);
    await a.get(LanesService).submit('health-q', 'g', 1);
    const res = await request(a.getHttpServer()).get('/health').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.info.echomq).toMatchObject({ status: 'up', loops: 1 });
    expect(res.body.info.echomq.pingMs).toBeGreaterThanOrEqual(0);
  });

  it('is up under the least-privilege ACL user of the README', async () => {
    const admin = server.client();
    try {
      await admin.call('ACL', 'SETUSER', 'leastpriv', 'on', '>pw', ...echoMqAclRules().split(' '));
      const a = await boot(`redis://leastpriv:pw@127.0.0.1:${server.port}`);
      const res = await request(a.getHttpServer()).get('/health').expect(200);
      expect(res.body.info.echomq).toMatchObject({ status: 'up', loops: 1 });
    } finally {
      await app?.close();
      app = undefined;
      await admin.acl('DELUSER', 'leastpriv');
      await admin.quit();
    }
  });

  it('is down, with the reason, while the server is stopped, and up again once it is back', async () => {
    const own = await TestRedisServer.start();
    try {
      const a = await boot(own.url);
      await request(a.getHttpServer()).get('/health').expect(200);
      await own.kill();
      const res = await request(a.getHttpServer()).get('/health').expect(503);
      expect(res.body.status).toBe('error');
      expect(res.body.error.echomq.status).toBe('down');
      expect(res.body.error.echomq.reason).toMatch(/Redis connection is|did not answer a PING/);
      await own.launch();
      await until(async () => (await request(a.getHttpServer()).get('/health')).status === 200, 15_000, 'health to come back');
    } finally {
      await app?.close();
      app = undefined;
      await own.stop();
    }
  });

  it('is down while a claim loop has been failing for longer than its lease (server answering), and up once it claims again', async () => {
    // A user who may PING but not run scripts: every claim fails, the loop backs off.
    const admin = server.client();
    try {
      await admin.acl('SETUSER', 'noscripts', 'on', '>pw', '~*', '&*', '+@all', '-eval', '-evalsha', '-fcall', '-fcall_ro');
      const a = await boot(`redis://noscripts:pw@127.0.0.1:${server.port}`);
      let res = await request(a.getHttpServer()).get('/health');
      await until(async () => {
        res = await request(a.getHttpServer()).get('/health');
        return res.status === 503;
      }, 10_000, 'health to go down');
      expect(res.body.error.echomq).toMatchObject({ status: 'down', reason: '1 claim loop(s) failing for longer than their lease' });
      expect(res.body.error.echomq.failing).toEqual([
        expect.objectContaining({ consumer: 'HealthWorker.handle', queue: 'health-q', leaseMs: 200 }),
      ]);
      expect(res.body.error.echomq.failing[0].failingForMs).toBeGreaterThan(200);
      await admin.acl('SETUSER', 'noscripts', '+eval', '+evalsha');
      await until(async () => (await request(a.getHttpServer()).get('/health')).status === 200, 15_000, 'health to come back');
    } finally {
      await app?.close();
      app = undefined;
      await admin.acl('DELUSER', 'noscripts');
      await admin.quit();
    }
  });
});
