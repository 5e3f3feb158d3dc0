#!/usr/bin/env node
/**
 * The dashboard at scale (npm run bench:dashboard): a queue of 100,000 lanes on a private
 * redis-server, the dashboard of dist/ in a Nest app, Debian's Chromium through playwright-core.
 * Prints the server time per refresh (a snapshot, as the live stream reads it), the longest server
 * command meanwhile (SLOWLOG), the page's time to interactive, and the bytes the page ships.
 * Reports figures; asserts nothing about them.
 */
'use strict';

require('reflect-metadata');
const { gzipSync } = require('zlib');
const { readdirSync, readFileSync } = require('fs');
const path = require('path');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { chromium } = require('playwright-core');
const { EchoMqModule, LanesService } = require('../dist');
const { EchoMqDashboardModule } = require('../dist/dashboard');
const { BenchServer } = require('./lib/server');

const LANES = Number(process.argv.find((a) => a.startsWith('--lanes='))?.slice(8) ?? 100_000);
const REFRESHES = 30;
const LOADS = 5;
const QUEUE = 'big';
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const say = (line) => process.stdout.write(`${line}\n`);

async function main() {
  const server = await BenchServer.start();
  let app;
  let browser;
  try {
    class Root {}
    Module({})(Root);
    app = await NestFactory.create({
      module: Root,
      imports: [EchoMqModule.forRoot({ connection: `redis://127.0.0.1:${server.port}` }), EchoMqDashboardModule.forRoot({ queues: [QUEUE] })],
    }, { logger: ['error', 'warn'] });
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${app.getHttpServer().address().port}/echomq`;
    const lanes = app.get(LanesService);

    const items = Array.from({ length: LANES }, (_, i) => ({ group: `tenant-${String(i).padStart(6, '0')}`, payload: { i } }));
    items.push(...Array.from({ length: 30 }, () => ({ group: 'whale', payload: { i: -1 } })));
    const seeded = Date.now();
    for (let i = 0; i < items.length; i += 20_000) await lanes.submitMany(QUEUE, items.slice(i, i + 20_000));
    say(`seeded ${items.length.toLocaleString('en-US')} jobs over ${(LANES + 1).toLocaleString('en-US')} lanes in ${Date.now() - seeded} ms (redis ${server.version.split(' ')[2] ?? ''})`);

    const admin = server.client();
    await admin.config('SET', 'slowlog-log-slower-than', '500');
    await admin.slowlog('RESET');
    const readMs = [];
    const wallMs = [];
    let frameBytes = 0;
    for (let i = 0; i < REFRESHES; i++) {
      const t = process.hrtime.bigint();
      const res = await fetch(`${base}/api/snapshot?queue=${QUEUE}`);
      const text = await res.text();
      wallMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      const snap = JSON.parse(text);
      readMs.push(snap.readMs);
      frameBytes = Buffer.byteLength(text);
    }
    const slow = await admin.slowlog('GET', 20);
    const longest = slow.reduce((m, e) => (Number(e[2]) > m.us ? { us: Number(e[2]), cmd: String(e[3][0]) + ' ' + String(e[3][1] ?? '') } : m), { us: 0, cmd: '-' });
    say(`server time per refresh (one snapshot: stats, top 50 lanes, ring head, 10 head positions, latest dead), ${REFRESHES} refreshes:`);
    say(`  read from the server: median ${median(readMs).toFixed(1)} ms, p95 ${p95(readMs).toFixed(1)} ms; HTTP round trip median ${median(wallMs).toFixed(1)} ms`);
    say(`  longest server command meanwhile: ${longest.us ? `${(longest.us / 1000).toFixed(2)} ms (${longest.cmd.trim()})` : 'none over 0.5 ms'}`);
    say(`  one frame of the live stream: ${frameBytes.toLocaleString('en-US')} bytes of JSON`);
    await admin.quit();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const loads = [];
    let shipped = 0;
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const t = Date.now();
      await page.goto(`${base}?queue=${QUEUE}`);
      await page.waitForSelector('body[data-frame-at] #search-text:enabled');
      loads.push(Date.now() - t);
      // NOTE: the page and its files (decoded bytes), not its API calls or its stream.
      shipped = await page.evaluate(() => performance.getEntries()
        .filter((e) => 'decodedBodySize' in e && !e.name.includes('/api/'))
        .reduce((n, e) => n + e.decodedBodySize, 0));
      await context.close();
    }
    say(`page at ${(LANES + 1).toLocaleString('en-US')} lanes, fresh browser context each time, ${LOADS} loads:`);
    say(`  navigation to first frame drawn and controls enabled: median ${median(loads)} ms (min ${Math.min(...loads)}, max ${Math.max(...loads)})`);

    const dir = path.join(__dirname, '..', 'dist', 'dashboard', 'ui');
    const files = readdirSync(dir).map((f) => readFileSync(path.join(dir, f)));
    const raw = files.reduce((n, b) => n + b.length, 0);
    const gz = files.reduce((n, b) => n + gzipSync(b).length, 0);
    say(`what the page ships: ${files.length} files, ${raw.toLocaleString('en-US')} bytes (${gz.toLocaleString('en-US')} gzipped, file by file); the browser fetched ${shipped.toLocaleString('en-US')} bytes of them per load`);
  } finally {
    await browser?.close();
    await app?.close();
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench:dashboard failed: ${err.stack || err}\n`);
  process.exit(1);
});
