import { execFileSync, spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'fs';
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

function link(project: string, name: string): void {
  const to = join(project, 'node_modules', name);
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), to, 'dir');
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
for (const entry of ['@echomq/nestjs/metrics', '@echomq/nestjs/health']) {
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
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs a job through the main entry without any optional peer, and loads none', () => {
    const r = run(project, 'core.cjs', { REDIS_URL: server.url });
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ result: 42, optional: [] });
  });

  it('says which package to install when a subpath lacks its peer', () => {
    const r = run(project, 'subpaths.cjs');
    expect(JSON.parse(r.out)).toEqual({
      '@echomq/nestjs/metrics': expect.stringContaining('needs the package "prom-client", which is not installed'),
      '@echomq/nestjs/health': expect.stringContaining('needs the package "@nestjs/terminus", which is not installed'),
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
