import { CanActivate, ExecutionContext, INestApplication, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { get as httpGet, IncomingMessage } from 'http';
import request from 'supertest';
import { EchoMqError, EchoMqModule, LaneConsumer, LanesService } from '../../lib';
import { DASHBOARD_ACTION_HEADER, EchoMqDashboardModule, EchoMqDashboardOptions } from '../../lib/dashboard';
import { expectDashboardPage } from '../support/dashboard';
import { sameLane } from '../support/lanes';
import { CapturingLogger, nestFixture } from '../support/nest';

const TOKEN = 'api-test-token';

@Injectable()
class TokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ query: Record<string, unknown> }>().query.token === TOKEN;
  }
}

@LaneConsumer('found-by-discovery')
@Injectable()
class IdleWorker {
  async handle(): Promise<void> {}
}

const ACTIONS: [string, Record<string, unknown>][] = [
  ['pause', { group: 'acme', forMs: 60_000, reason: 'r' }],
  ['resume', { group: 'acme' }],
  ['weight', { group: 'acme', weight: 5 }],
  ['limit', { group: 'acme', limit: 2 }],
  ['rate', { group: 'acme', rate: { max: 1, perMs: 1000 } }],
  ['retry', { jobId: 'JOB00000000001' }],
  ['tenant/pause', { tenant: 'acme-co', forMs: 60_000, reason: 'r' }],
  ['tenant/resume', { tenant: 'acme-co' }],
  ['tenant/weight', { tenant: 'acme-co', weight: 5 }],
  ['tenant/limit', { tenant: 'acme-co', limit: 2 }],
];

describe('dashboard HTTP API', () => {
  const fixture = nestFixture();

  async function boot(options: EchoMqDashboardOptions, providers: unknown[] = [], shardsOnOneServer = false): Promise<{ app: INestApplication; lanes: LanesService }> {
    const logger = new CapturingLogger();
    @Module({ providers: providers as never[] })
    class Extra {}
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: fixture.server.url, logger, shardsOnOneServer }), EchoMqDashboardModule.forRoot(options), Extra],
    }).compile();
    const app = mod.createNestApplication({ logger });
    fixture.apps.push(app);
    await app.init();
    return { app, lanes: app.get(LanesService) };
  }

  it('refuses to boot writable without a guard, with an EchoMqError (MISCONFIGURED) saying what to add', async () => {
    expect(() => EchoMqDashboardModule.forRoot({ readOnly: false })).toThrow(/needs a guard: add `guard: YourAuthGuard`/);
    expect(() => EchoMqDashboardModule.forRoot({ path: '/a b' })).toThrow(/path must look like/);
    expect(() => EchoMqDashboardModule.forRoot({ queues: [''] })).toThrow(/queues must be an array/);
    // The way an app meets it: the import list of its module fails to build, before anything opens.
    let err: unknown;
    try {
      await boot({ readOnly: false });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ name: 'EchoMqError', code: 'MISCONFIGURED', argument: 'guard' });
  });

  it('serves the page with a CSP that allows no inline script, and its files from the package', async () => {
    const { app } = await boot({ queues: ['shop'] });
    await expectDashboardPage(app.getHttpServer());
  });

  it('read-only (the default): every change is refused with 403 and changes nothing', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] });
    await lanes.submit('shop', 'acme', { n: 1 }, { tenant: 'acme-co' });
    const before = await lanes.lane('shop', 'acme');
    const tenantBefore = await lanes.tenant('shop', 'acme-co');
    const http = request(app.getHttpServer());
    expect((await http.get('/echomq/api/config')).body).toEqual({ queues: ['shop'], readOnly: true, actionHeader: DASHBOARD_ACTION_HEADER });
    for (const [action, body] of ACTIONS) {
      const res = await http.post(`/echomq/api/${action}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', ...body });
      expect([action, res.status]).toEqual([action, 403]);
      expect(res.body.message).toMatch(/read-only/);
    }
    expect(await lanes.lane('shop', 'acme')).toEqual(sameLane(before));
    expect(await lanes.tenant('shop', 'acme-co')).toEqual(tenantBefore);
  });

  it('tenants: the snapshot carries the top tenants and the queue ceiling; tenant changes need the header and the guard', async () => {
    const { app, lanes } = await boot({ queues: ['shop'], readOnly: false, guard: TokenGuard });
    for (let i = 0; i < 3; i++) await lanes.submit('shop', `u${i}`, { i }, { tenant: 'acme-co' });
    await lanes.submit('shop', 'solo', { n: 1 });
    await lanes.queueLimit('shop', 7);
    const http = request(app.getHttpServer());
    const snap = (await http.get(`/echomq/api/snapshot?queue=shop&token=${TOKEN}`)).body;
    expect(snap.stats.limit).toBe(7);
    expect(snap.tenants).toEqual([expect.objectContaining({ tenant: 'acme-co', lanes: 3, pending: 3, inRing: true, paused: false })]);
    expect(snap.lanes.filter((l: { tenant: string | null }) => l.tenant === 'acme-co')).toHaveLength(3);
    expect(snap.ring).toEqual(expect.arrayContaining(['{t}acme-co', 'solo']));

    const noHeader = await http.post(`/echomq/api/tenant/pause?token=${TOKEN}`).send({ queue: 'shop', tenant: 'acme-co' });
    expect([noHeader.status, noHeader.body.message]).toEqual([403, expect.stringContaining(DASHBOARD_ACTION_HEADER)]);
    const noToken = await http.post('/echomq/api/tenant/pause').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co' });
    expect(noToken.status).toBe(403);
    expect((await lanes.tenant('shop', 'acme-co')).paused).toBe(false);

    const act = (path: string, body: Record<string, unknown>) =>
      http.post(`/echomq/api/tenant/${path}?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', tenant: 'acme-co', ...body });
    const paused = await act('pause', { forMs: 600_000, reason: 'billing' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ tenant: 'acme-co', paused: true, pauseReason: 'billing', inRing: false });
    expect(paused.body.pausedUntil).toBeGreaterThan(Date.now());
    expect(await lanes.ring('shop', 10)).toEqual(['solo']);
    expect((await act('weight', { weight: 3 })).body).toMatchObject({ weight: 3 });
    expect((await act('limit', { limit: 2 })).body).toMatchObject({ limit: 2 });
    expect((await act('limit', { limit: '' })).body).toMatchObject({ limit: null });
    expect((await act('resume', {})).body).toMatchObject({ paused: false, inRing: true });
    expect(await lanes.tenant('shop', 'acme-co')).toMatchObject({ weight: 3, limit: null, paused: false });
    // Bad input: the engine's message naming the argument, as a 400; nothing written.
    const bad = await act('weight', { weight: 0 });
    expect([bad.status, bad.body.argument]).toEqual([400, 'weight']);
    const badName = await act('limit', { tenant: 'no{brace', limit: 1 });
    expect([badName.status, badName.body.argument]).toEqual([400, 'tenant']);
    expect((await lanes.tenant('shop', 'acme-co')).weight).toBe(3);
    const read = await http.get(`/echomq/api/tenant?queue=shop&tenant=acme-co&token=${TOKEN}`);
    expect(read.body).toMatchObject({ tenant: 'acme-co', lanes: 3, weight: 3 });
    expect((await http.get('/echomq/api/tenant?queue=shop&tenant=acme-co')).status).toBe(403);
  });

  it('the fairness view keeps a tenant\'s lanes under it through the window though they drain as fast as they fill (and so leave it)', async () => {
    const { app, lanes } = await boot({ queues: ['drains'] });
    const http = request(app.getHttpServer());
    const view = async () => (await http.get('/echomq/api/snapshot?queue=drains')).body as {
      tenants: { tenant: string }[]; fairness: { lanes: { group: string; tenant: string | null; served: number | null }[] };
    };
    const serve = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const job = await lanes.claim('drains');
        if (job) await lanes.complete('drains', job.id, job.attempt);
      }
    };
    for (const group of ['ta', 'tb']) await lanes.submitMany('drains', [0, 1, 2].map((i) => ({ group, payload: i, opts: { tenant: 'acme' } })));
    await lanes.submitMany('drains', [0, 1, 2].map((i) => ({ group: 'loose', payload: i })));
    await serve(3);
    // A frame while the lanes hold jobs (the feed reads one every second or so).
    const first = await view();
    expect(first.fairness.lanes.filter((l) => l.tenant === 'acme').map((l) => l.group).sort()).toEqual(['ta', 'tb']);
    await serve(6);
    expect((await lanes.lane('drains', 'ta')).tenant).toBeNull();
    const later = await view();
    const row = (g: string) => later.fairness.lanes.find((l) => l.group === g);
    expect([row('ta')?.tenant, row('ta')?.served, row('tb')?.tenant, row('tb')?.served, row('loose')?.tenant]).toEqual(['acme', 3, 'acme', 3, null]);
    expect(later.tenants.map((t) => t.tenant)).toContain('acme');
  });

  it('a sharded queue: the snapshot, the lane pages and the fairness view gather its shards; a lane action reaches the lane\'s shard', async () => {
    const { app, lanes } = await boot({ queues: ['spread'], readOnly: false, guard: TokenGuard }, [], true);
    await lanes.shards('spread', 4);
    const groups = Array.from({ length: 24 }, (_, i) => `g${i}`);
    await lanes.submitMany('spread', groups.flatMap((group, i) => Array.from({ length: 1 + (i % 3) }, (_, j) => ({ group, payload: j }))));
    const http = request(app.getHttpServer());
    const snap = (await http.get(`/echomq/api/snapshot?queue=spread&token=${TOKEN}`)).body;
    expect(snap.stats).toMatchObject({ shards: 4, pending: 48, lanes: 24, ringLength: 24 });
    expect(snap.lanes.map((l: { group: string }) => l.group).sort()).toEqual([...groups].sort());
    // NOTE: the shards' rings one entry of each in turn, as many as the page shows (more than one shard holds).
    expect(snap.ring.length).toBeGreaterThan(12);
    expect(snap.ring.every((g: string) => groups.includes(g))).toBe(true);
    const scanned: string[] = [];
    let cursor = '';
    do {
      const page = (await http.get('/echomq/api/scan').query({ queue: 'spread', token: TOKEN, cursor, count: 5 })).body;
      scanned.push(...page.lanes.map((l: { group: string }) => l.group));
      cursor = page.cursor ?? '';
    } while (cursor !== '');
    expect(scanned.sort()).toEqual([...groups].sort());
    const paused = await http.post(`/echomq/api/pause?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'spread', group: 'g5', reason: 'audit' });
    expect([paused.status, paused.body.group, paused.body.paused, paused.body.pauseReason]).toEqual([200, 'g5', true, 'audit']);
    expect((await lanes.lane('spread', 'g5')).paused).toBe(true);
    expect((await lanes.stats('spread')).pausedLanes).toBe(1);
    const { jobs } = await lanes.claimMany('spread', 20);
    await lanes.completeMany('spread', jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
    const fair = (await http.get(`/echomq/api/snapshot?queue=spread&token=${TOKEN}`)).body.fairness;
    expect(fair.lanes.reduce((a: number, l: { served: number }) => a + l.served, 0)).toBe(20);
  });

  it('the job view: one job with its progress and last error, no payload; 404 for an id it does not hold, 400 for a bad one', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] });
    const id = await lanes.submit('shop', 'acme', { secret: 'payload' });
    const held = (await lanes.claim('shop'))!;
    await lanes.progress('shop', id, held.attempt, { done: 2, of: 5 });
    const http = request(app.getHttpServer());
    const res = await http.get('/echomq/api/job').query({ queue: 'shop', id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, group: 'acme', state: 'active', attempt: 1, progress: { done: 2, of: 5 } });
    expect(res.body).not.toHaveProperty('payload');
    expect((await http.get('/echomq/api/job').query({ queue: 'shop', id: 'JOB00000000001' })).status).toBe(404);
    const bad = await http.get('/echomq/api/job').query({ queue: 'shop', id: 'nope' });
    expect([bad.status, bad.body.argument]).toEqual([400, 'jobId']);
  });

  it('writable: a change needs both the action header and the guard', async () => {
    const { app, lanes } = await boot({ queues: ['shop'], readOnly: false, guard: TokenGuard });
    await lanes.submit('shop', 'acme', { n: 1 });
    const http = request(app.getHttpServer());
    const noHeader = await http.post(`/echomq/api/weight?token=${TOKEN}`).send({ queue: 'shop', group: 'acme', weight: 4 });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.message).toContain(DASHBOARD_ACTION_HEADER);
    const noToken = await http.post('/echomq/api/weight').set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', weight: 4 });
    expect(noToken.status).toBe(403);
    expect((await lanes.lane('shop', 'acme')).weight).toBe(1);

    const ok = await http.post(`/echomq/api/weight?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', weight: 4 });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ group: 'acme', weight: 4, pending: 1 });
    expect((await lanes.lane('shop', 'acme')).weight).toBe(4);

    // Bad input: the engine's message, naming the argument, as a 400; nothing written.
    const bad = await http.post(`/echomq/api/limit?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'shop', group: 'acme', limit: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'limit' });
    expect((await lanes.lane('shop', 'acme')).limit).toBeNull();

    // The guard covers the reads too, and a queue the dashboard does not show is not there.
    expect((await http.get('/echomq/api/config')).status).toBe(403);
    expect((await http.get('/echomq/api/stream?queue=shop')).status).toBe(403);
    expect((await http.get(`/echomq/api/snapshot?queue=other&token=${TOKEN}`)).status).toBe(404);
    expect((await http.get(`/echomq/api/stream?queue=other&token=${TOKEN}`)).status).toBe(404);
    expect((await http.get(`/echomq/api/lanes?queue=shop&count=0&token=${TOKEN}`)).body).toMatchObject({ statusCode: 400, argument: 'count' });
    const other = await http.post(`/echomq/api/pause?token=${TOKEN}`).set(DASHBOARD_ACTION_HEADER, '1').send({ queue: 'other', group: 'acme' });
    expect(other.status).toBe(404);
  });

  it('shows the queues of the app\'s consumers when no queues are given', async () => {
    const { app } = await boot({ path: 'ops/queues' }, [IdleWorker]);
    const res = await request(app.getHttpServer()).get('/ops/queues/api/config');
    expect(res.body.queues).toEqual(['found-by-discovery']);
  });

  it('streams frames over SSE, coalescing a burst of changes into a few frames', async () => {
    const { app, lanes } = await boot({ queues: ['shop'] });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const frames: { at: number; pending: number }[] = [];
    let res: IncomingMessage | undefined;
    const first = new Promise<void>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port, path: '/echomq/api/stream?queue=shop' }, (r) => {
        res = r;
        expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
        let buf = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          buf += chunk;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const event = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = event.split('\n').find((l) => l.startsWith('data: '));
            if (data) frames.push({ at: Date.now(), pending: JSON.parse(data.slice(6)).stats.pending });
            resolve();
          }
        });
      }).on('error', reject);
    });
    await first;
    expect(frames[0].pending).toBe(0);
    // A burst: 300 submits over about 1.5 s, each a change (the stream looks twice a second).
    const started = Date.now();
    for (let i = 0; i < 300; i++) {
      await lanes.submit('shop', `t${i % 30}`, { i });
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 100));
    }
    const burstMs = Date.now() - started;
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`last frame shows ${frames[frames.length - 1].pending} pending`)), 6_000);
      const check = setInterval(() => {
        if (frames[frames.length - 1].pending === 300) {
          clearTimeout(deadline);
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    res?.destroy();
    const during = frames.slice(1);
    // NOTE: one frame per 1.5 s at most (leading and trailing edges), whatever the number of changes.
    expect(during.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1_500) + 1);
    expect(during.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < during.length; i++) expect(during[i].at - during[i - 1].at).toBeGreaterThan(1_200);
    expect(burstMs).toBeGreaterThan(1_000);
  });
});
