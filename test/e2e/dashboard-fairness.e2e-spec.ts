/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { INestApplication, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { setTimeout as sleep } from 'timers/promises';
import { EchoMqModule, LaneConsumer, LanesService, Weighted } from '../../lib';
import { EchoMqDashboardModule } from '../../lib/dashboard';
import { dashboardBrowser } from '../support/browser';
import { CapturingLogger, nestFixture } from '../support/nest';

const QUEUE = 'drill';
const XSS = '<img src=x onerror=alert(1)>';

/** What the fairness table shows of one lane row, read from the page as a person sees it. */
interface FairRow {
  lane: string;
  /** The served share the row's figures state (0..1), null when it says it is not among the most served. */
  shown: number | null;
  /** The served share and the entitled share the row's bar is drawn from. */
  share: number | null;
  entitled: number | null;
  /** Width of the served bar against its track (0..1 of the bar's scale). */
  barWidth: number | null;
  ageText: string;
  ageClass: string;
  state: string;
}

/** A duration as the page writes it (850 ms, 1.2 s, 4 min) in ms. */
function msOf(text: string): number {
  const m = /^([\d.,]+) (ms|s|min|h)$/.exec(text.trim());
  if (!m) return NaN;
  return Number(m[1].replace(/,/g, '')) * ({ ms: 1, s: 1_000, min: 60_000, h: 3_600_000 } as Record<string, number>)[m[2]];
}

/** The drill's consumer (the README screenshot): two at a time, each job a little work, weights honoured. */
@LaneConsumer(QUEUE, { concurrency: 2 })
@Weighted()
@Injectable()
class DrillWorker {
  async handle(): Promise<void> {
    await sleep(30);
  }
}

describe('dashboard fairness view in a real browser (Chromium)', () => {
  const fixture = nestFixture();
  const { open } = dashboardBrowser();

  /** Boots an app with the read-only dashboard on QUEUE (and the drill's consumer when asked), on a free loopback port. */
  async function boot(opts: { worker?: boolean } = {}): Promise<{ app: INestApplication; url: string; lanes: LanesService }> {
    const logger = new CapturingLogger();
    const mod = await Test.createTestingModule({
      imports: [
        EchoMqModule.forRoot({ connection: fixture.server.url, logger }),
        EchoMqDashboardModule.forRoot({ queues: [QUEUE] }),
      ],
      providers: opts.worker ? [DrillWorker] : [],
    }).compile();
    const app = mod.createNestApplication({ logger });
    fixture.apps.push(app);
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url: `${base}/echomq/?queue=${QUEUE}`, lanes: app.get(LanesService) };
  }

  /** The lane rows of the fairness table, as drawn. */
  function fairRows(page: Page): Promise<FairRow[]> {
    return page.locator('#fair tbody tr.lane').evaluateAll((trs) => trs.map((tr) => {
      const cell = tr.querySelector('td.share') as HTMLElement;
      const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
      const served = tr.querySelector('.share-bar rect.served');
      const track = tr.querySelector('.share-bar rect.track');
      const pct = tr.querySelector('.served-pct')?.textContent ?? '';
      const age = tr.querySelector('td.age .age-chip') as HTMLElement;
      return {
        lane: tr.querySelector('td.name > span')?.textContent ?? '',
        shown: /%$/.test(pct) ? Number(pct.slice(0, -1)) / 100 : null,
        share: num(cell.dataset.share),
        entitled: num(cell.dataset.entitled),
        barWidth: served && track ? Number(served.getAttribute('width')) / Number(track.getAttribute('width')) : null,
        ageText: age.textContent ?? '',
        ageClass: [...age.classList].find((c) => c.startsWith('age-') && c !== 'age-chip') ?? '',
        state: tr.querySelector('td.why')?.textContent ?? '',
      };
    }));
  }

  /** Claims and completes `n` jobs of the queue one at a time, `gapMs` apart: a steady consumer. Returns the lanes served, in order. */
  async function serve(lanes: LanesService, n: number, gapMs: number): Promise<string[]> {
    const order: string[] = [];
    while (order.length < n) {
      const job = await lanes.claim(QUEUE);
      if (!job) break;
      order.push(job.group);
      await lanes.complete(QUEUE, job.id, job.attempt);
      await sleep(gapMs);
    }
    return order;
  }

  /** Waits for the page to draw a frame read after `ms` (host clock, as the snapshot's `at`). */
  async function frameAfter(page: Page, ms: number): Promise<void> {
    await page.waitForFunction((t) => Number(document.body.dataset.frameAt) > t, ms, { timeout: 6_000 });
  }

  const LIGHT = ['light-1', 'light-2', 'light-3', 'light-4', 'light-5'];

  it('a flooded lane and 5 light lanes show equal served shares against equal entitlements, and small head ages', async () => {
    const { url, lanes } = await boot();
    const { page, trouble } = await open(url);
    try {
      // The flood comes first: a queue that served in submit order would give it every claim below.
      await lanes.submitMany(QUEUE, Array.from({ length: 300 }, (_, i) => ({ group: 'flood', payload: { i } })));
      await lanes.submitMany(QUEUE, LIGHT.flatMap((group) => Array.from({ length: 20 }, (_, i) => ({ group, payload: { i } }))));
      // 90 claims: 15 from each lane in turn, so every light lane still holds 5 and stays backlogged.
      const served = await serve(lanes, 90, 5);
      expect(served.slice(0, 12).filter((g) => g === 'flood')).toHaveLength(2);
      await frameAfter(page, Date.now());
      const rows = await fairRows(page);
      expect(rows.map((r) => r.lane).sort()).toEqual(['flood', ...LIGHT].sort());
      for (const row of rows) {
        // Each got a sixth of the service and is entitled to a sixth (six backlogged lanes of weight 1).
        expect([row.lane, row.entitled]).toEqual([row.lane, expect.closeTo(1 / 6, 2)]);
        expect(Math.abs(row.share! - 1 / 6)).toBeLessThan(0.05);
        expect(Math.abs(row.shown! - row.share!)).toBeLessThan(0.006);
        expect(row.state).toBe('in ring');
        // A head waits its turn of the ring, not behind the flood: all under the first threshold (green).
        expect([row.lane, row.ageClass]).toEqual([row.lane, 'age-ok']);
        expect(msOf(row.ageText)).toBeLessThan(5_000);
      }
      // The picture: the six served bars are about as long as each other.
      const widths = rows.map((r) => r.barWidth!);
      expect(Math.max(...widths) - Math.min(...widths)).toBeLessThan(0.2 * Math.max(...widths));
      const jain = await page.locator('#fair-summary .jain').innerText();
      expect(Number(/Jain index ([\d.]+)/.exec(jain)?.[1])).toBeGreaterThan(0.95);
      // The ring, drawn in the order the next claims serve it.
      const ring = await lanes.ring(QUEUE, 20);
      const slices = await page.locator('#ring-wheel .slice title').allTextContents();
      expect(slices.map((t) => /^\d+\. (.*), weight/.exec(t)?.[1])).toEqual(ring);
      expect(trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await page.close();
    }
  });

  it('a paused lane shows its reason and its head age growing (as text only), and the summary names it the oldest', async () => {
    const { url, lanes } = await boot();
    const reason = 'billing hold <b>card declined</b>';
    await lanes.submitMany(QUEUE, Array.from({ length: 10 }, (_, i) => ({ group: 'held', payload: { i } })));
    await lanes.pause(QUEUE, 'held', { reason });
    await sleep(20);
    await lanes.submitMany(QUEUE, [
      ...Array.from({ length: 100 }, (_, i) => ({ group: 'flood', payload: { i } })),
      ...LIGHT.slice(0, 3).flatMap((group) => Array.from({ length: 10 }, (_, i) => ({ group, payload: { i } }))),
      ...Array.from({ length: 10 }, (_, i) => ({ group: XSS, payload: { i }, opts: { tenant: XSS } })),
    ]);
    await serve(lanes, 20, 2);
    const { page, trouble } = await open(url);
    try {
      await page.waitForSelector('#fair tbody tr.lane[data-lane="held"]');
      const held = page.locator('#fair tbody tr.lane[data-lane="held"]');
      expect(await held.locator('td.why').innerText()).toBe(`paused · until resumed · ${reason}`);
      // Not served: fewer than 20 lanes were, so its share is known to be 0 (or within the shares' ±2 when they list it).
      expect(Number(await held.locator('td.share').getAttribute('data-share'))).toBeLessThan(0.05);
      expect(await held.locator('td.share').getAttribute('data-share')).not.toBe('');
      expect(await page.locator('#fair-summary .oldest code').innerText()).toBe('held');
      // Off the ring while paused.
      expect(await page.locator('#ring-wheel .slice title').allTextContents()).not.toContainEqual(expect.stringContaining('held'));

      // Its age grows on the page: between two reads a second and a half apart, and from frame to frame.
      const ageOf = async () => msOf(await held.locator('td.age .age-chip').innerText());
      const serverAge = async () => Number(await held.locator('td.age .age-chip').getAttribute('data-age'));
      const [firstText, firstServer] = [await ageOf(), await serverAge()];
      await sleep(1_500);
      expect(await ageOf()).toBeGreaterThanOrEqual(firstText + 1_000);
      await frameAfter(page, Date.now());
      expect(await serverAge()).toBeGreaterThan(firstServer + 1_000);

      // A tenant's lanes sit under its row; names and reasons are text, nothing of them runs.
      const tenantRow = page.locator('#fair tbody tr.tenant', { has: page.locator('td.name > span:nth-child(2)', { hasText: XSS }) });
      expect(await tenantRow.count()).toBe(1);
      const order = await page.locator('#fair tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.className}:${tr.querySelector('td.name > span:not(.kind)')?.textContent}`));
      const at = order.indexOf(`tenant:${XSS}`);
      expect(order[at + 1]).toBe(`lane in-tenant:${XSS}`);
      expect(await page.locator('#fairness img, #fairness b').count()).toBe(0);
      expect(await page.locator('#ring li.tenant').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining(XSS)]));
      expect(trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await page.close();
    }
  });

  it('a snapshot reads the fairness view with bounded calls (one shares read of 20 lanes, one oldest-heads read), on any number of lanes', async () => {
    const { app, lanes } = await boot();
    const LANES = 2_000;
    await lanes.submitMany(QUEUE, Array.from({ length: LANES }, (_, i) => ({ group: `lane-${i}`, payload: { i } })));
    await serve(lanes, 200, 0);
    const shares = jest.spyOn(lanes, 'shares');
    const oldest = jest.spyOn(lanes, 'oldestLanes');
    const lane = jest.spyOn(lanes, 'lane');
    try {
      const res = await request(app.getHttpServer()).get(`/echomq/api/snapshot?queue=${QUEUE}`);
      expect(res.status).toBe(200);
      expect(shares.mock.calls).toEqual([[QUEUE, { count: 20 }]]);
      expect(oldest.mock.calls).toEqual([[QUEUE, 10]]);
      // The lanes of the view and of the ring's head that the top lanes did not hold: at most 20 + 10 + 20.
      expect(lane.mock.calls.length).toBeLessThanOrEqual(50);
      const view = res.body.fairness;
      expect(view).toMatchObject({ by: 'jobs', windowMs: 60_000, complete: false });
      expect(view.lanes.filter((l: { served: number | null }) => l.served !== null)).toHaveLength(20);
      expect(view.ring.map((e: { name: string }) => e.name)).toEqual(res.body.ring);
      const total = view.lanes.reduce((n: number, l: { work: number | null }) => n + (l.work ?? 0), 0);
      expect(view.total).toBe(total);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('README screenshot: the fairness view during a flood drill', async () => {
    const docs = process.env.EMQ_DOCS_PICTURE === '1';
    const { url, lanes } = await boot({ worker: true });
    // The drill: one lane floods at once; the others (five light lanes, a tenant's two lanes, a lane of
    // weight 2) keep sending a little more than their share, so they stay backlogged with short waits;
    // one lane is paused with a reason, and its head ages.
    // NOTE: paused before its jobs come, or the running consumer would take some first.
    await lanes.pause(QUEUE, 'reports', { reason: 'billing hold: card declined' });
    await lanes.submitMany(QUEUE, Array.from({ length: 10 }, (_, i) => ({ group: 'reports', payload: { i } })));
    // NOTE: for the docs picture the paused head first ages past the 30 s threshold (red), and the drill starts after.
    if (docs) await sleep(25_000);
    await lanes.submitMany(QUEUE, Array.from({ length: 5_000 }, (_, i) => ({ group: 'flood', payload: { i } })));
    await lanes.weight(QUEUE, 'vip', 2);
    const steady: { group: string; opts?: { tenant: string }; per: number }[] = [
      ...LIGHT.map((group) => ({ group, per: 2 })),
      { group: 'acme-ann', opts: { tenant: 'acme' }, per: 1 },
      { group: 'acme-bob', opts: { tenant: 'acme' }, per: 1 },
      { group: 'vip', per: 4 },
    ];
    let feeding = true;
    const feeder = (async () => {
      while (feeding) {
        await lanes.submitMany(QUEUE, steady.flatMap((s) => Array.from({ length: s.per }, (_, i) => ({ group: s.group, payload: { i }, opts: s.opts }))));
        await sleep(200);
      }
    })();
    const { page, trouble } = await open(url);
    try {
      await page.waitForFunction(() => document.querySelectorAll('#fair tbody tr.lane').length >= 9, undefined, { timeout: 15_000 });
      // NOTE: long enough for the shares to settle, and for the flood's own head to pass the first threshold.
      await sleep(6_000);
      await frameAfter(page, Date.now());
      const rows = await fairRows(page);
      expect(rows.find((r) => r.lane === 'reports')).toMatchObject({ share: 0, state: expect.stringContaining('billing hold') });
      if (docs) expect(rows.find((r) => r.lane === 'reports')?.ageClass).toBe('age-bad');
      // NOTE: tests write to temporary folders only; EMQ_DOCS_PICTURE=1 writes the tracked docs/dashboard-fairness.png.
      const dir = docs ? join(__dirname, '..', '..', 'docs') : mkdtempSync(join(tmpdir(), 'echomq-fairness-'));
      mkdirSync(dir, { recursive: true });
      try {
        const shot = await page.locator('#fairness').screenshot({ path: join(dir, 'dashboard-fairness.png') });
        expect(shot.length).toBeGreaterThan(10_000);
      } finally {
        if (!docs) rmSync(dir, { recursive: true, force: true });
      }
      // It fits a phone-width screen.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      expect(trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      feeding = false;
      await feeder;
      await page.close();
    }
  }, 90_000);
});
