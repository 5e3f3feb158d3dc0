import { execFile } from 'child_process';
import { join } from 'path';
import { Injectable } from '@nestjs/common';
import { EchoMqError, LaneConsumer, LaneJob, LanesService } from '../../lib';
import { testQueue } from '../support/lanes';
import { bootApp, socketsTo, until } from '../support/nest';
import { freePort, TestRedisServer } from '../support/redis-server';
import { makeTestCerts, TestCerts } from '../support/tls';

const queue = testQueue();
const seen: string[] = [];

@LaneConsumer(queue)
@Injectable()
class TlsWorker {
  async handle(job: LaneJob): Promise<void> {
    seen.push(job.id);
  }
}

/** Runs the rediss:// child with the given CA file trusted; resolves with its output and exit code. */
function runChild(url: string, caFile: string): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-r', join(__dirname, '..', 'support', 'ts-register.js'), join(__dirname, '..', 'fixtures', 'rediss-child.ts'), url, testQueue()],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ out: `${stdout}${stderr}`, code: err ? (err as { code?: number }).code ?? 1 : 0 }));
  });
}

/**
 * TLS with a CA the test makes itself: the server speaks TLS on one port (its plain port is for the
 * harness), the certificate is checked against the CA given, and a CA that did not sign it fails
 * the boot at once with a message saying what to fix.
 */
describe('TLS connections', () => {
  let certs: TestCerts;
  let server: TestRedisServer;
  let tlsPort: number;

  beforeAll(async () => {
    certs = makeTestCerts();
    tlsPort = await freePort();
    server = await TestRedisServer.start(certs.serverArgs(tlsPort));
  });
  afterAll(async () => {
    await server?.stop();
    certs?.remove();
  });

  it('{ tls: { ca } }: a consumer runs a job submitted over TLS, and close leaves no socket', async () => {
    const { app } = await bootApp('', [TlsWorker], { connection: { host: '127.0.0.1', port: tlsPort, tls: { ca: certs.ca } } });
    try {
      const id = await app.get(LanesService).submit(queue, 'g', { over: 'tls' });
      await until(() => seen.includes(id), 10_000, 'the job to run over TLS');
    } finally {
      await app.close();
    }
    await until(() => socketsTo(tlsPort) === 0, 2_000, 'the TLS sockets to close');
  });

  it('{ tls: { ca } } with a CA that did not sign the certificate: the boot fails at once, naming the cause', async () => {
    const started = Date.now();
    const booting = bootApp('', [TlsWorker], { connection: { host: '127.0.0.1', port: tlsPort, tls: { ca: certs.otherCa } } });
    const err = await booting.then(() => undefined, (e: unknown) => e);
    const ms = Date.now() - started;
    expect(err).toBeInstanceOf(EchoMqError);
    expect((err as EchoMqError).code).toBe('MISCONFIGURED');
    expect((err as Error).message).toMatch(/certificate/i);
    process.stdout.write(`[tls] wrong CA: boot failed after ${ms} ms: ${(err as Error).message}\n`);
    expect((err as Error).message).toMatch(/tls: \{ ca \}/);
    expect(ms).toBeLessThan(2_500);
    // Nothing keeps retrying behind the failed boot.
    await until(() => socketsTo(tlsPort) === 0, 2_000, 'the refused connections to close');
  });

  it('rediss:// with the CA trusted (NODE_EXTRA_CA_CERTS): a Nest app runs a job; with another CA its boot fails', async () => {
    const url = `rediss://127.0.0.1:${tlsPort}`;
    const [good, bad] = await Promise.all([runChild(url, certs.caFile), runChild(url, certs.otherCaFile)]);
    expect(good.out).toContain('handled the submitted job');
    expect(good.code).toBe(0);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/boot failed after \d+ ms: EchoMqError: EchoMQ could not connect to Redis/);
    expect(Number(/after (\d+) ms/.exec(bad.out)?.[1])).toBeLessThan(2_500);
  });
});
