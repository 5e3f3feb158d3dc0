import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { get as httpGet, IncomingMessage } from 'http';
import request from 'supertest';
import { EchoMqModule, LanesService } from '../../lib';
import { DASHBOARD_ACTION_HEADER, EchoMqDashboardModule, EchoMqDashboardOptions } from '../../lib/dashboard';
import { expectDashboardPage } from '../support/dashboard';
import { sameLane } from '../support/lanes';
import { CapturingLogger, nestFixture } from '../support/nest';

const TOKEN = 'fastify-test-token';

/** Reads the token from the query, as the Express suite's guard does: Fastify parses the query too. */
@Injectable()
class TokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ query: Record<string, unknown> }>().query.token === TOKEN;
  }
}

/** The routes of dashboard-api.e2e-spec.ts on Fastify, whose one difference was `path/` (see the controller's onModuleInit). */
describe('dashboard on Fastify', () => {
  const fixture = nestFixture();

  async function boot(options: EchoMqDashboardOptions, adapter = new FastifyAdapter(), prefix?: string): Promise<{ app: NestFastifyApplication; lanes: LanesService }> {
    const logger = new CapturingLogger();
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: fixture.server.url, logger }), EchoMqDashboardModule.forRoot(options)],
    }).compile();
    const app = mod.createNestApplication<NestFastifyApplication>(adapter, { logger });
    fixture.apps.push(app);
    if (prefix) app.setGlobalPrefix(prefix);
    await app.init();
    // Fastify finishes loading its plugins on `ready`; supertest's first request would race it otherwise.
    await app.getHttpAdapter().getInstance().ready();
    return { app, lanes: app.get(LanesService) };
  }

  it('serves the page with its headers, and its files by exact name only', async () => {
    const { app } = await boot({ queues: ['shop'] });
    await expectDashboardPage(app.getHttpServer());
  });

  it('with ignoreTrailingSlash, Fastify\'s own route answers `path/` and the page adds none (no duplicate)', async () => {
    const { app } = await boot({ queues: ['shop'] }, new FastifyAdapter({ routerOptions: { ignoreTrailingSlash: true } }));
    const http = request(app.getHttpServer());
    expect((await http.get('/echomq?token=abc')).headers.location).toBe('/echomq/?token=abc');
    const page = await http.get('/echomq/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('under a global prefix, where nothing answers `path/`, the page redirects to `path/index.html`, whose files and API resolve', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] }, new FastifyAdapter(), 'internal');
    await lanes.submit('shop', 'acme', { n: 1 });
    const http = request(app.getHttpServer());
    expect((await http.get('/internal/echomq/')).status).toBe(404);
    const redirect = await http.get('/internal/echomq?token=abc');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/internal/echomq/index.html?token=abc');
    const page = await http.get('/internal/echomq/index.html?token=abc');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // What the page loads, relative to where it is: its files, and its API (api.js: new URL('api/', document.baseURI)).
    for (const src of page.text.match(/(?:src|href)="([^"]+)"/g)!.map((m) => m.slice(m.indexOf('"') + 1, -1))) {
      const file = new URL(src, 'http://host/internal/echomq/index.html').pathname;
      expect([file, (await http.get(file)).status]).toEqual([file, 200]);
    }
    const config = await http.get(new URL('api/config', 'http://host/internal/echomq/index.html').pathname);
    expect(config.body).toMatchObject({ queues: ['shop'] });
  });

  it('answers the JSON API with real data and streams a first frame over SSE', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] });
    for (let i = 0; i < 3; i++) await lanes.submit('shop', 'acme', { i });
    await lanes.submit('shop', 'globex', { i: 0 });
    const http = request(app.getHttpServer());
    expect((await http.get('/echomq/api/config')).body).toEqual({ queues: ['shop'], readOnly: true, actionHeader: DASHBOARD_ACTION_HEADER });

    const snap = await http.get('/echomq/api/snapshot?queue=shop');
    expect(snap.status).toBe(200);
    expect(snap.headers['cache-control']).toBe('no-store');
    expect(snap.body).toMatchObject({ queue: 'shop', stats: { pending: 4 } });
    expect(snap.body.lanes.map((l: { group: string; pending: number }) => [l.group, l.pending])).toEqual([['acme', 3], ['globex', 1]]);
    expect((await http.get('/echomq/api/snapshot?queue=other')).status).toBe(404);

    // SSE over a real socket: supertest would wait for the end of a stream that never ends.
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    let res: IncomingMessage | undefined;
    const first = await new Promise<{ type: string; data: { queue: string; stats: { pending: number } } }>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port, path: '/echomq/api/stream?queue=shop' }, (r) => {
        res = r;
        if (!/^text\/event-stream/.test(String(r.headers['content-type']))) reject(new Error(`content-type ${r.headers['content-type']}`));
        let buf = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          buf += chunk;
          const end = buf.indexOf('\n\n');
          if (end < 0) return;
          const lines = buf.slice(0, end).split('\n');
          const type = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '';
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null';
          resolve({ type, data: JSON.parse(data) });
        });
      }).on('error', reject);
    });
    res?.destroy();
    expect(first.type).toBe('frame');
    expect(first.data).toMatchObject({ queue: 'shop', stats: { pending: 4 } });
  });

  it('read-only (the default): a change is refused with 403 and changes nothing', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] });
    await lanes.submit('shop', 'acme', { n: 1 });
    const before = await lanes.lane('shop', 'acme');
    const res = await request(app.getHttpServer())
      .post('/echomq/api/pause').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', forMs: 60_000, reason: 'r' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/read-only/);
    expect(await lanes.lane('shop', 'acme')).toEqual(sameLane(before));
  });

  it('tenant changes: refused read-only, and need the action header and the guard when writable', async () => {
    const ro = await boot({ queues: ['shop'] });
    await ro.lanes.submit('shop', 'acme', { n: 1 }, { tenant: 'acme-co' });
    const refused = await request(ro.app.getHttpServer())
      .post('/echomq/api/tenant/pause').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co', reason: 'r' });
    expect([refused.status, refused.body.message]).toEqual([403, expect.stringMatching(/read-only/)]);
    expect((await ro.lanes.tenant('shop', 'acme-co')).paused).toBe(false);

    const { app, lanes } = await boot({ queues: ['shop'], readOnly: false, guard: TokenGuard });
    const http = request(app.getHttpServer());
    expect((await http.post(`/echomq/api/tenant/pause?token=${TOKEN}`).send({ queue: 'shop', tenant: 'acme-co' })).status).toBe(403);
    expect((await http.post('/echomq/api/tenant/pause').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co' })).status).toBe(403);
    expect((await lanes.tenant('shop', 'acme-co')).paused).toBe(false);
    const ok = await http.post(`/echomq/api/tenant/pause?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co', forMs: '60000', reason: 'r' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ tenant: 'acme-co', paused: true, pauseReason: 'r', inRing: false });
    const limit = await http.post(`/echomq/api/tenant/limit?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co', limit: 4 });
    expect(limit.body).toMatchObject({ limit: 4 });
    const snap = (await http.get(`/echomq/api/snapshot?queue=shop&token=${TOKEN}`)).body;
    expect(snap.tenants).toEqual([expect.objectContaining({ tenant: 'acme-co', paused: true, limit: 4 })]);
    expect(snap.stats.limit).toBeNull();
  });

  it('writable: a change needs both the action header and the guard', async () => {
    const { app, lanes } = await boot({ queues: ['shop'], readOnly: false, guard: TokenGuard });
    await lanes.submit('shop', 'acme', { n: 1 });
    const http = request(app.getHttpServer());
    const noHeader = await http.post(`/echomq/api/pause?token=${TOKEN}`).send({ queue: 'shop', group: 'acme', reason: 'r' });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.message).toContain(DASHBOARD_ACTION_HEADER);
    const noToken = await http.post('/echomq/api/pause').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', reason: 'r' });
    expect(noToken.status).toBe(403);
    expect((await lanes.lane('shop', 'acme')).paused).toBe(false);

    const ok = await http.post(`/echomq/api/pause?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', reason: 'r' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ group: 'acme', paused: true, pending: 1 });
    expect((await lanes.lane('shop', 'acme')).paused).toBe(true);

    // Bad input: the engine's message as a 400, from Fastify's JSON body as from Express's.
    const bad = await http.post(`/echomq/api/weight?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', weight: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'weight' });
    expect((await lanes.lane('shop', 'acme')).weight).toBe(1);
    expect((await http.get('/echomq/api/config')).status).toBe(403);
  });
});
