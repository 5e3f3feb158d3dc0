import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { connect } from 'net';
import { EchoMqModule, LaneConsumer, LaneJob, LanesService } from '@echomq/nestjs';
import { startTestServer, TestServer } from '@echomq/nestjs/testing';

/** `@echomq/nestjs/testing` as a user's e2e test uses it: a throwaway server for an app, then gone. */
const refuses = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', () => resolve(true));
});

@LaneConsumer('testing-subpath')
@Injectable()
class EchoWorker {
  async handle(job: LaneJob<string>): Promise<string> {
    return job.payload.toUpperCase();
  }
}

describe('startTestServer (@echomq/nestjs/testing)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('starts a private server on a free port, not 6379, that an app runs its jobs on', async () => {
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const mod = await Test.createTestingModule({
      imports: [EchoMqModule.forRoot({ connection: server.url })],
      providers: [EchoWorker],
    }).compile();
    const app = mod.createNestApplication({ logger: false });
    await app.init();
    try {
      const lanes = app.get(LanesService);
      const id = await lanes.submit('testing-subpath', 'g', 'hi');
      expect((await lanes.waitFor('testing-subpath', id, { timeoutMs: 20_000 }))?.result).toBe('HI');
    } finally {
      await app.close();
    }
  });

  it('stops for good (the port refuses connections), and a second stop is harmless', async () => {
    const other = await startTestServer({ args: ['--maxmemory', '64mb'] });
    expect(other.port).not.toBe(server.port);
    expect(await refuses(other.port)).toBe(false);
    await other.stop();
    await other.stop();
    expect(await refuses(other.port)).toBe(true);
  });

  it('names the binary it could not start', async () => {
    await expect(startTestServer({ bin: '/nonexistent/redis-server' })).rejects.toThrow(/\/nonexistent\/redis-server.*REDIS_SERVER_BIN/);
    await expect(startTestServer({ bin: '/nonexistent/redis-server' })).rejects.toMatchObject({ name: 'EchoMqError', code: 'MISCONFIGURED' });
    await expect(startTestServer({ args: ['--no-such-option', 'x'] })).rejects.toMatchObject({ name: 'EchoMqError', code: 'MISCONFIGURED', message: expect.stringMatching(/opts\.args/) });
  });
});
