#!/usr/bin/env node
/**
 * `npm run check:pack`: the packed tarball under NestJS 12 from an ES module, with the optional peers
 * installed (metrics, health, tracing) and a job run end to end on a private redis-server. It needs
 * the npm registry (Nest 12 is not a dev dependency), so it is a script, not part of `npm test`.
 */
const { execFileSync, spawn } = require('child_process');
const { mkdtempSync, readdirSync, rmSync, writeFileSync } = require('fs');
const { createServer } = require('net');
const { tmpdir } = require('os');
const { join } = require('path');

const ROOT = join(__dirname, '..', '..');
const PEERS = ['ioredis@6', '@nestjs/common@12', '@nestjs/core@12', 'reflect-metadata@0.2', 'rxjs@7', 'prom-client@15', '@nestjs/terminus@12', '@opentelemetry/api@1'];

const MAIN = `
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { register } from 'prom-client';
import { EchoMqModule, getQueueToken, LaneConsumer, LanesService, OnLaneEvent } from '@echomq/nestjs';
import { EchoMqMetricsModule } from '@echomq/nestjs/metrics';
import { EchoMqHealthIndicator } from '@echomq/nestjs/health';

let done;
const completed = new Promise((r) => (done = r));
class Worker {
  async handle(job) { return job.payload.n * 2; }
  completed(job, result) { done(result); }
}
LaneConsumer('n12-q')(Worker);
Injectable()(Worker);
OnLaneEvent('completed')(Worker.prototype, 'completed', Object.getOwnPropertyDescriptor(Worker.prototype, 'completed'));
class AppModule {}
Module({
  imports: [
    EchoMqModule.forRoot({ connection: process.env.REDIS_URL }), EchoMqModule.registerQueue({ name: 'n12-q', defaults: { maxAttempts: 2, keepCompletedMs: 60_000 } }),
    EchoMqMetricsModule.forRoot(), TerminusModule,
  ],
  providers: [Worker, EchoMqHealthIndicator],
})(AppModule);

const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'], abortOnError: false });
const id = await app.get(getQueueToken('n12-q')).submit('g', { n: 21 });
const result = await completed;
const handle = (await app.get(LanesService).job('n12-q', id))?.maxAttempts === 2;
const health = await app.get(EchoMqHealthIndicator).isHealthy();
const metrics = await register.metrics();
await app.close();
const core = (await import('@nestjs/core/package.json', { with: { type: 'json' } })).default.version;
console.log(JSON.stringify({ nestCore: core, result, handle, health: health.echomq.status, jobsTotal: /echomq_jobs_total\\{queue="n12-q",event="submitted"\\} 1/.test(metrics) }));
`;

function freePort() {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'echomq-nest12-'));
  let redis;
  try {
    execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'nest12-check', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball, ...PEERS], { cwd: dir, stdio: 'inherit' });
    writeFileSync(join(dir, 'main.mjs'), MAIN);
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    const out = execFileSync(process.execPath, ['main.mjs'], { cwd: dir, env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}` }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    console.log(out.trim());
    const r = JSON.parse(out.trim().split('\n').pop());
    if (!r.nestCore.startsWith('12.') || r.result !== 42 || r.handle !== true || r.health !== 'up' || !r.jobsTotal) throw new Error('unexpected result');
    console.log('check:pack: ok (NestJS 12 from an ES module, ioredis 6, a queue handle, metrics, health and a job run end to end)');
  } finally {
    redis?.kill('SIGKILL');
    if (process.env.KEEP) console.log('kept', dir); else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error('check:pack failed:', err.message, err.stderr ?? '');
  process.exit(1);
});
