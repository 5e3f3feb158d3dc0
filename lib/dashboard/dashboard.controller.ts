import {
  BadRequestException, Body, CanActivate, Controller, Get, Header, HttpCode, Inject, MessageEvent,
  NotFoundException, OnModuleInit, Param, Post, Query, Req, Res, Sse, StreamableFile, Type, UseGuards,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { firstValueFrom, map, Observable, timeout } from 'rxjs';
import { EchoMqError, LanesService } from '../index';
import type { JobInfo, TenantInfo } from '../index';
import { DashboardActionGuard } from './dashboard-action.guard';
import { DASHBOARD_CSP, DashboardAssets } from './dashboard-assets';
import { DashboardFeed } from './dashboard-feed';
import { DashboardLaneSearch, LaneSearchResult } from './dashboard-lane-search';
import type { ResolvedDashboardOptions } from './dashboard-options.interface';
import { DashboardQueues } from './dashboard-queues';
import { DASHBOARD_ACTION_HEADER, ECHOMQ_DASHBOARD_OPTIONS, FIRST_FRAME_WAIT_MS, SNAPSHOT_POSITIONS } from './dashboard.constants';
import { DeadRow, deadRow, LaneRow, QueueSnapshot, QueueSnapshotReader } from './queue-snapshot.reader';

type Body = Record<string, unknown>;

/** The little of a Fastify instance the page's second route needs (typed here: Fastify is not a dependency). */
interface FastifyRoutes {
  findRoute(route: { method: string; url: string }): unknown;
  get(url: string, handler: (req: unknown, reply: unknown) => void): unknown;
}

/** Runs a LanesService call; its EchoMqError (bad input) becomes a 400 carrying its message. */
async function checked<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof EchoMqError) {
      throw new BadRequestException({ statusCode: 400, error: 'Bad Request', message: err.message, code: err.code, argument: err.argument });
    }
    throw err;
  }
}

const num = (v: unknown): unknown => (typeof v === 'string' && v !== '' ? Number(v) : v);

/** A pause's `forMs` and `reason` from a change's body, each when given (a lane's pause and a tenant's). */
function pauseOptions(body: Body): { forMs?: number; reason?: string } {
  const opts: { forMs?: number; reason?: string } = {};
  if (body.forMs !== undefined && body.forMs !== null && body.forMs !== '') opts.forMs = num(body.forMs) as number;
  if (body.reason !== undefined && body.reason !== null && body.reason !== '') opts.reason = body.reason as string;
  return opts;
}

/**
 * @internal The dashboard's controller for one mount: the page at `path`, its files at
 * `path/assets/…`, its JSON at `path/api/…` and its live stream at `path/api/stream`. A class is
 * made per `forRoot` call because a controller's path and guards are fixed when it is declared.
 */
export function createDashboardController(path: string, guard: Type<CanActivate> | null): Type<unknown> {
  const reads = guard ? [guard] : [];

  @Controller(path)
  class EchoMqDashboardController implements OnModuleInit {
    constructor(
      @Inject(ECHOMQ_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
      private readonly queues: DashboardQueues,
      private readonly reader: QueueSnapshotReader,
      private readonly feed: DashboardFeed,
      private readonly search: DashboardLaneSearch,
      private readonly lanes: LanesService,
      private readonly assets: DashboardAssets,
      private readonly adapterHost: HttpAdapterHost,
    ) {}

    /**
     * Nest strips the slash off `path/`, and Fastify, unlike Express, does not answer `path/` from a
     * route at `path` (unless `ignoreTrailingSlash`), so the page the redirect points to would be a 404
     * there: it is added at `path/` by hand. Runs after Nest's routes are added and before Fastify is
     * ready. Only when Fastify serves the page at `path` and not yet at `path/`; under a global prefix
     * (which a module cannot read) the page redirects to `path/index.html` instead (see page).
     */
    onModuleInit(): void {
      const http = this.adapterHost.httpAdapter;
      if (http?.getType() !== 'fastify') return;
      const fastify = http.getInstance<FastifyRoutes>();
      if (!fastify.findRoute({ method: 'GET', url: path }) || fastify.findRoute({ method: 'GET', url: `${path}/` })) return;
      fastify.get(`${path}/`, (req, reply) => void this.page(req, reply));
    }

    /**
     * The page. Served at `path/` so that its files resolve relative to it; `path` redirects there,
     * or to `path/index.html` where nothing answers `path/` (Fastify under a global prefix).
     */
    @Get()
    async page(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      const http = this.adapterHost.httpAdapter;
      const url = new URL(http.getRequestUrl(req) as string, 'http://page');
      if (!url.pathname.endsWith('/')) {
        http.redirect(res, 302, `${url.pathname}/${this.slashAnswered(url.pathname) ? '' : 'index.html'}${url.search}`);
        return;
      }
      await this.sendPage(req, res);
    }

    /** The page again, for where `path/` has no route (see page). */
    @Get('index.html')
    async pageFile(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      await this.sendPage(req, res);
    }

    /** Whether a GET of `pathname/` reaches a route: always on Express, on Fastify only when one is there. */
    private slashAnswered(pathname: string): boolean {
      const http = this.adapterHost.httpAdapter;
      if (http.getType() !== 'fastify') return true;
      return Boolean(http.getInstance<FastifyRoutes>().findRoute({ method: 'GET', url: `${pathname}/` }));
    }

    private async sendPage(req: unknown, res: unknown): Promise<void> {
      const http = this.adapterHost.httpAdapter;
      const html = this.assets.get('index.html')!;
      const body = await this.withFirstFrame(html.body.toString('utf8'), req);
      http.setHeader(res, 'Content-Type', html.type);
      http.setHeader(res, 'Content-Security-Policy', DASHBOARD_CSP);
      http.setHeader(res, 'X-Content-Type-Options', 'nosniff');
      http.setHeader(res, 'Referrer-Policy', 'no-referrer');
      http.setHeader(res, 'Cache-Control', 'no-store');
      http.reply(res, body, 200);
    }

    /**
     * The page with its config and the first frame of the queue it opens on, as a JSON data block the
     * page draws from before its load event, so that the first paint (a headless screenshot, a slow
     * link) shows the queue rather than "connecting…". Only without a guard: the page itself is not
     * guarded (a guard may read a token from the API calls), so a guarded page fetches everything
     * through the API, as before. A server slower than FIRST_FRAME_WAIT_MS gets the page without it.
     * The JSON has `<` escaped, so no user-chosen string can end the block.
     */
    private async withFirstFrame(html: string, req: unknown): Promise<string> {
      if (guard) return html;
      const queues = this.queues.all();
      const wanted = new URL(this.adapterHost.httpAdapter.getRequestUrl(req) as string, 'http://page').searchParams.get('queue');
      const queue = wanted !== null && queues.includes(wanted) ? wanted : queues[0];
      if (queue === undefined) return html;
      const frame = await firstValueFrom(this.feed.frames(queue).pipe(timeout({ first: FIRST_FRAME_WAIT_MS }))).catch(() => null);
      if (!frame) return html;
      const data = JSON.stringify({ config: this.config(), queue, frame })
        .replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      return html.replace('</head>', `<script id="echomq-first" type="application/json">${data}</script>\n</head>`);
    }

    /** The page's scripts and styles, by exact file name. */
    @Get('assets/:file')
    @Header('X-Content-Type-Options', 'nosniff')
    @Header('Content-Security-Policy', DASHBOARD_CSP)
    @Header('Cache-Control', 'no-cache')
    asset(@Param('file') file: string): StreamableFile {
      const asset = this.assets.get(file);
      if (!asset || file === 'index.html') throw new NotFoundException();
      return new StreamableFile(asset.body, { type: asset.type, length: asset.body.length });
    }

    /** What the page needs to know before it draws: the queues and whether it may change things. */
    @Get('api/config')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    config(): { queues: readonly string[]; readOnly: boolean; actionHeader: string } {
      return { queues: this.queues.all(), readOnly: this.options.readOnly, actionHeader: DASHBOARD_ACTION_HEADER };
    }

    /** A fresh snapshot of a queue (what a frame of the live stream holds). */
    @Get('api/snapshot')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    snapshot(@Query('queue') queue: unknown): Promise<QueueSnapshot> {
      return checked(() => this.reader.snapshot(this.queues.check(queue)));
    }

    /** The live stream of a queue: its latest frame at once, then one per coalesced change. */
    @Sse('api/stream')
    @UseGuards(...reads)
    stream(@Query('queue') queue: unknown): Observable<MessageEvent> {
      return this.feed.frames(this.queues.check(queue)).pipe(map((frame) => ({ type: 'frame', data: frame })));
    }

    /** The `count` lanes with most pending (up to 1,000), the first of them with their head's position. */
    @Get('api/lanes')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    top(@Query('queue') queue: unknown, @Query('count') count: unknown): Promise<LaneRow[]> {
      const q = this.queues.check(queue);
      return checked(async () => this.reader.withHeads(q, await this.reader.reads.topLanes(q, num(count ?? 50) as number), SNAPSHOT_POSITIONS));
    }

    /** Every lane, a page at a time, in the order the server keeps them. */
    @Get('api/scan')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    scan(@Query('queue') queue: unknown, @Query('cursor') cursor: unknown, @Query('count') count: unknown) {
      const q = this.queues.check(queue);
      return checked(() => this.reader.reads.scanLanes(q, cursor === undefined || cursor === '' ? undefined : String(cursor), num(count ?? 100) as number));
    }

    /** One lane, with its head's position. */
    @Get('api/lane')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    lane(@Query('queue') queue: unknown, @Query('group') group: unknown): Promise<LaneRow> {
      const q = this.queues.check(queue);
      return checked(async () => (await this.reader.withHeads(q, [await this.reader.reads.lane(q, group as string)], 1))[0]);
    }

    /** Lanes by name: the exact one, and names that contain the text (a bounded part of the queue per call). */
    @Get('api/search')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    find(@Query('queue') queue: unknown, @Query('q') text: unknown, @Query('cursor') cursor: unknown): Promise<LaneSearchResult> {
      const q = this.queues.check(queue);
      if (typeof text !== 'string' || text === '') throw new BadRequestException('q (the text to look for) is required.');
      return checked(() => this.search.search(q, text, cursor === undefined || cursor === '' ? undefined : String(cursor)));
    }

    /** Dead letters, oldest death first, a page at a time. */
    @Get('api/dead')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    dead(@Query('queue') queue: unknown, @Query('offset') offset: unknown, @Query('count') count: unknown): Promise<DeadRow[]> {
      const q = this.queues.check(queue);
      return checked(async () => (await this.lanes.dead(q, { offset: num(offset ?? 0) as number, count: num(count ?? 50) as number })).map(deadRow));
    }

    /** One job as it is now (its state, attempts, progress, last error), without its payload; 404 when the queue does not hold it. */
    @Get('api/job')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    async job(@Query('queue') queue: unknown, @Query('id') id: unknown): Promise<Omit<JobInfo, 'payload'>> {
      const q = this.queues.check(queue);
      const info = await checked(() => this.lanes.job(q, id as string));
      if (!info) throw new NotFoundException(`Queue ${q} holds no job ${String(id)} (never submitted, cancelled, or completed and not kept).`);
      const { payload: _payload, ...shown } = info;
      return shown;
    }

    /** Pauses a lane, for `forMs` when given, with a `reason` when given. */
    @Post('api/pause')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    pause(@Body() body: Body): Promise<LaneRow> {
      return this.act(body, (q, g) => {
        return this.lanes.pause(q, g, pauseOptions(body));
      });
    }

    /** Puts a paused lane back in service. */
    @Post('api/resume')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    resume(@Body() body: Body): Promise<LaneRow> {
      return this.act(body, (q, g) => this.lanes.resume(q, g));
    }

    /** Sets a lane's weight. */
    @Post('api/weight')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    weight(@Body() body: Body): Promise<LaneRow> {
      return this.act(body, (q, g) => this.lanes.weight(q, g, num(body.weight) as number));
    }

    /** Sets a lane's concurrency ceiling; `null` (or an empty value) removes it. */
    @Post('api/limit')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    limit(@Body() body: Body): Promise<LaneRow> {
      const limit = body.limit === null || body.limit === '' ? null : (num(body.limit) as number);
      return this.act(body, (q, g) => this.lanes.limit(q, g, limit));
    }

    /** Sets a lane's rate ceiling (`{ max, perMs }`); `null` removes it. */
    @Post('api/rate')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    rate(@Body() body: Body): Promise<LaneRow> {
      const r = body.rate as Record<string, unknown> | null | undefined;
      const rate = r === null || r === undefined ? null : ({ max: num(r.max), perMs: num(r.perMs) } as { max: number; perMs: number });
      return this.act(body, (q, g) => this.lanes.rate(q, g, rate));
    }

    /** One tenant: its lanes' sums, its settings, whether it is on the ring. */
    @Get('api/tenant')
    @UseGuards(...reads)
    @Header('Cache-Control', 'no-store')
    tenant(@Query('queue') queue: unknown, @Query('tenant') tenant: unknown): Promise<TenantInfo> {
      const q = this.queues.check(queue);
      return checked(() => this.reader.reads.tenant(q, tenant as string));
    }

    /** Pauses every lane of a tenant, for `forMs` when given, with a `reason` when given. */
    @Post('api/tenant/pause')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    pauseTenant(@Body() body: Body): Promise<TenantInfo> {
      return this.actOnTenant(body, (q, t) => this.lanes.pauseTenant(q, t, pauseOptions(body)));
    }

    /** Puts a paused tenant back in service. */
    @Post('api/tenant/resume')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    resumeTenant(@Body() body: Body): Promise<TenantInfo> {
      return this.actOnTenant(body, (q, t) => this.lanes.resumeTenant(q, t));
    }

    /** Sets a tenant's weight (its share of the queue's ring). */
    @Post('api/tenant/weight')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    tenantWeight(@Body() body: Body): Promise<TenantInfo> {
      return this.actOnTenant(body, (q, t) => this.lanes.tenantWeight(q, t, num(body.weight) as number));
    }

    /** Sets a tenant's ceiling on its active jobs; `null` (or an empty value) removes it. */
    @Post('api/tenant/limit')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    tenantLimit(@Body() body: Body): Promise<TenantInfo> {
      const limit = body.limit === null || body.limit === '' ? null : (num(body.limit) as number);
      return this.actOnTenant(body, (q, t) => this.lanes.tenantLimit(q, t, limit));
    }

    /** Puts a dead job back into its lane. */
    @Post('api/retry')
    @HttpCode(200)
    @UseGuards(DashboardActionGuard, ...reads)
    async retry(@Body() body: Body): Promise<{ retried: boolean }> {
      const q = this.queues.check(body?.queue);
      const retried = await checked(() => this.lanes.retryDead(q, body.jobId as string));
      this.feed.poke(q);
      return { retried };
    }

    /** Runs a change on a tenant, tells the queue's watchers, and answers with the tenant as it is now. */
    private async actOnTenant(body: Body, change: (queue: string, tenant: string) => Promise<unknown>): Promise<TenantInfo> {
      const q = this.queues.check(body?.queue);
      const tenant = body.tenant as string;
      await checked(() => change(q, tenant));
      this.feed.poke(q);
      return checked(() => this.reader.reads.tenant(q, tenant));
    }

    /** Runs a change on a lane, tells the queue's watchers, and answers with the lane as it is now. */
    private async act(body: Body, change: (queue: string, group: string) => Promise<unknown>): Promise<LaneRow> {
      const q = this.queues.check(body?.queue);
      const group = body.group as string;
      await checked(() => change(q, group));
      this.feed.poke(q);
      return checked(async () => (await this.reader.withHeads(q, [await this.reader.reads.lane(q, group)], 1))[0]);
    }
  }

  return EchoMqDashboardController;
}
