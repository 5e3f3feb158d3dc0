import { execFileSync, spawnSync } from 'child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { TestRedisServer } from '../support/redis-server';

/**
 * The package as users get it: `npm pack`, unpacked into a project of its own whose node_modules
 * holds only the required peers (linked from this repository's, so no registry is needed), then
 * the optional peers added. Checks that the main entry never loads an optional peer and that the
 * subpaths work from CommonJS and from an ES module.
 */
const ROOT = join(__dirname, '..', '..');
const REQUIRED = ['ioredis', '@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs', '@types/node'];
const OPTIONAL = ['prom-client', '@nestjs/terminus', '@opentelemetry/api'];

/** Links `name` into the project's node_modules from this repository's (`from`: another folder there, e.g. an npm alias). */
function link(project: string, name: string, from = name): void {
  const to = join(project, 'node_modules', name);
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', from), to, 'dir');
}

function run(project: string, file: string, env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [file], { cwd: project, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const CORE_CJS = `
require('reflect-metadata');
const { EchoMqModule, LanesService, LaneConsumer, OnLaneEvent } = require('@echomq/nestjs');
const { Injectable, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
let done;
const handled = new Promise((r) => (done = r));
class Worker { async handle(job) { return job.payload.n * 2; } completed(job, result) { done(result); } }
LaneConsumer('pack-q')(Worker);
Injectable()(Worker);
OnLaneEvent('completed')(Worker.prototype, 'completed', Object.getOwnPropertyDescriptor(Worker.prototype, 'completed'));
class AppModule {}
Module({ imports: [EchoMqModule.forRoot({ connection: process.env.REDIS_URL })], providers: [Worker] })(AppModule);
(async () => {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  await app.get(LanesService).submit('pack-q', 'g', { n: 21 });
  const result = await handled;
  await app.close();
  const optional = Object.keys(require.cache).filter((p) => /prom-client|@nestjs[\\\\/]terminus|@opentelemetry/.test(p));
  console.log(JSON.stringify({ result, optional }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const SUBPATHS_CJS = `
const out = {};
for (const entry of ['@echomq/nestjs/metrics', '@echomq/nestjs/health', '@echomq/nestjs/testing']) {
  try {
    out[entry] = Object.keys(require(entry)).sort();
  } catch (e) {
    out[entry] = 'error: ' + e.message;
  }
}
console.log(JSON.stringify(out));
`;

const ESM = `
import { EchoMqModule, LanesService } from '@echomq/nestjs';
import { EchoMqMetricsModule } from '@echomq/nestjs/metrics';
import { EchoMqHealthIndicator } from '@echomq/nestjs/health';
console.log(JSON.stringify([EchoMqModule, LanesService, EchoMqMetricsModule, EchoMqHealthIndicator].map((x) => typeof x)));
`;

/**
 * The snippet: an application's own RedisOptions and clients, typed by ITS ioredis (the peer), and
 * an iovalkey client, as the connection. With ioredis as a dependency of ours this failed (TS2322, two
 * copies of AbstractConnector) as soon as the app's ioredis was another major.
 */
const CLIENT_TYPES_TS = `
import { EchoMqModule } from '@echomq/nestjs';
import IORedis, { Cluster, RedisOptions } from 'ioredis';
import Valkey from 'iovalkey';
const o: RedisOptions = { host: '127.0.0.1', port: 6380, db: 0 };
export const fromOptions = EchoMqModule.forRoot({ connection: o });
export const fromClient = EchoMqModule.forRoot({ connection: new IORedis({ lazyConnect: true }) });
export const fromCluster = EchoMqModule.forRoot({ connection: new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true }) });
export const fromValkey = EchoMqModule.forRoot({ connection: new Valkey({ lazyConnect: true }) });
export const clusterOptions = EchoMqModule.forRoot({ connection: { cluster: [{ host: '127.0.0.1', port: 7000 }], options: { scaleReads: 'slave' } } });
`;

/** tsc under the Nest CLI's defaults plus strict; its output (empty when it compiles) and status. */
function typeCheck(project: string, file: string, extra: Record<string, unknown> = {}): { out: string; status: number | null } {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const config = `tsconfig.${file}.json`;
  writeFileSync(join(project, config), JSON.stringify({
    compilerOptions: {
      noEmit: true, strict: true, skipLibCheck: true, experimentalDecorators: true, emitDecoratorMetadata: true,
      module: 'commonjs', target: 'ES2021', esModuleInterop: true, types: ['node'], ...extra,
    },
    files: [file],
  }));
  const r = spawnSync(process.execPath, [tsc, '-p', config], { cwd: project, encoding: 'utf8' });
  return { out: r.stdout + r.stderr, status: r.status };
}

const TYPES_TS = `
import { EchoMqModule, LaneJob } from '@echomq/nestjs';
import { EchoMqMetricsModule, EchoMqMetricsOptions } from '@echomq/nestjs/metrics';
import { EchoMqHealthIndicator } from '@echomq/nestjs/health';
const options: EchoMqMetricsOptions = { topLanes: 5, queues: ['q'] };
export const used = [EchoMqModule, EchoMqMetricsModule.forRoot(options), EchoMqHealthIndicator];
export type J = LaneJob<{ n: number }>;
`;

describe('the packed tarball in a project of its own', () => {
  let server: TestRedisServer;
  let dir: string;
  let project: string;
  let project6: string;

  beforeAll(async () => {
    server = await TestRedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'echomq-pack-'));
    execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    project = join(dir, 'app');
    mkdirSync(join(project, 'node_modules', '@echomq'), { recursive: true });
    execFileSync('tar', ['xzf', join(dir, tarball), '-C', join(project, 'node_modules', '@echomq')]);
    renameSync(join(project, 'node_modules', '@echomq', 'package'), join(project, 'node_modules', '@echomq', 'nestjs'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-check', private: true }));
    for (const name of REQUIRED) link(project, name);
    writeFileSync(join(project, 'core.cjs'), CORE_CJS);
    writeFileSync(join(project, 'subpaths.cjs'), SUBPATHS_CJS);
    writeFileSync(join(project, 'esm.mjs'), ESM);
    writeFileSync(join(project, 'types.ts'), TYPES_TS);
    writeFileSync(join(project, 'clients.ts'), CLIENT_TYPES_TS);
    link(project, 'iovalkey');
    // NOTE: the same package in a project whose ioredis is 6 (a copy, not a link: a linked package
    // would find its peers from where the link points).
    project6 = join(dir, 'app6');
    mkdirSync(join(project6, 'node_modules', '@echomq'), { recursive: true });
    cpSync(join(project, 'node_modules', '@echomq', 'nestjs'), join(project6, 'node_modules', '@echomq', 'nestjs'), { recursive: true });
    writeFileSync(join(project6, 'package.json'), JSON.stringify({ name: 'pack-check-ioredis6', private: true }));
    for (const name of REQUIRED) link(project6, name, name === 'ioredis' ? 'ioredis6' : name);
    link(project6, 'iovalkey');
    writeFileSync(join(project6, 'core.cjs'), CORE_CJS);
    writeFileSync(join(project6, 'clients.ts'), CLIENT_TYPES_TS);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds every picture its README shows, where the README links it', () => {
    const pkg = join(project, 'node_modules', '@echomq', 'nestjs');
    const pictures = [...readFileSync(join(pkg, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(pictures.length).toBeGreaterThanOrEqual(5);
    expect(pictures.filter((p) => !existsSync(join(pkg, p)))).toEqual([]);
  });

  it('runs a job through the main entry without any optional peer, and loads none', () => {
    const r = run(project, 'core.cjs', { REDIS_URL: server.url });
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ result: 42, optional: [] });
  });

  it.each([['5', () => project], ['6', () => project6]])('types the app\'s own RedisOptions and clients of ioredis %s (and iovalkey\'s) as the connection', (major, dirOf) => {
    const { out, status } = typeCheck(dirOf(), 'clients.ts');
    expect(out).toBe('');
    expect(status).toBe(0);
    const own = require(join(dirOf(), 'node_modules', 'ioredis', 'package.json')) as { version: string };
    expect(own.version.split('.')[0]).toBe(major);
    // NOTE: a peer, never a dependency: npm would install a copy of its own beside the app's (another
    // major's types, TS2322) — what this check cannot see, since it links the peers by hand.
    const ours = require(join(dirOf(), 'node_modules', '@echomq', 'nestjs', 'package.json')) as Record<string, Record<string, string> | undefined>;
    expect(ours.dependencies?.ioredis).toBeUndefined();
    expect(ours.peerDependencies?.ioredis).toBe('^5.4.0 || ^6.0.0');
  });

  it('runs a job on ioredis 6 when that is the app\'s ioredis', () => {
    const r = run(project6, 'core.cjs', { REDIS_URL: server.url });
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ result: 42, optional: [] });
  });

  it('says which package to install when a subpath lacks its peer', () => {
    const r = run(project, 'subpaths.cjs');
    expect(JSON.parse(r.out)).toEqual({
      '@echomq/nestjs/metrics': expect.stringContaining('needs the package "prom-client", which is not installed'),
      '@echomq/nestjs/health': expect.stringContaining('needs the package "@nestjs/terminus", which is not installed'),
      '@echomq/nestjs/testing': ['startTestServer'],
    });
  });

  describe('with the optional peers installed', () => {
    beforeAll(() => {
      for (const name of OPTIONAL) link(project, name);
    });

    it('loads the subpaths from CommonJS', () => {
      const r = run(project, 'subpaths.cjs');
      expect(JSON.parse(r.out)).toEqual({
        '@echomq/nestjs/metrics': ['EchoMqMetricsModule'],
        '@echomq/nestjs/health': ['EchoMqHealthIndicator'],
        '@echomq/nestjs/testing': ['startTestServer'],
      });
    });

    it('loads the main entry and the subpaths from an ES module', () => {
      const r = run(project, 'esm.mjs');
      expect(r.err).toBe('');
      expect(JSON.parse(r.out)).toEqual(['function', 'function', 'function', 'function']);
    });

    it.each(['node10', 'node16'])('types the subpaths under moduleResolution %s', (resolution) => {
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      writeFileSync(join(project, `tsconfig.${resolution}.json`), JSON.stringify({
        compilerOptions: {
          noEmit: true, strict: true, skipLibCheck: true, experimentalDecorators: true, types: ['node'],
          module: resolution === 'node10' ? 'commonjs' : 'node16', moduleResolution: resolution,
        },
        files: ['types.ts'],
      }));
      const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], { cwd: project, encoding: 'utf8' });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  });
});
