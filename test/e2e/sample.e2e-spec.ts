import { INestApplication, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { spawn } from 'child_process';
import { connect } from 'net';
import { join } from 'path';
import request from 'supertest';
import { AppModule } from '../../sample/app.module';
import { TestRedisServer } from '../support/redis-server';
import { until } from '../support/nest';

const ROOT = join(__dirname, '..', '..');
const GUESS = '🍎🍌🍇🍓';

/** Polls `probe` until it returns true; fails with `what` after `ms`. */
async function eventually(what: string, probe: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Sockets and timers this process holds open (Node's own view). */
function openResources(): string[] {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap' || r === 'Timeout').sort();
}

/** Boots the sample's AppModule the way its main.ts does, minus the listening port. */
async function boot(): Promise<INestApplication> {
  const mod = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = mod.createNestApplication({ logger: ['error'] });
  await app.init();
  return app;
}

describe('sample app (codemojex)', () => {
  let server: TestRedisServer;
  let app: INestApplication | undefined;
  const savedUrl = process.env.REDIS_URL;

  beforeEach(async () => {
    server = await TestRedisServer.start();
    process.env.REDIS_URL = server.url;
    app = await boot();
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await server.stop();
    if (savedUrl === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = savedUrl;
  });

  const http = () => request(app!.getHttpServer());

  it('queues each guess on its player\'s lane and scores every one', async () => {
    const guesses = [
      ...Array.from({ length: 20 }, () => ({ player: 'masher', guess: GUESS })),
      ...['ana', 'ben', 'chloe'].flatMap((player) => Array.from({ length: 3 }, () => ({ player, guess: '🍒🍒🍍🍍' }))),
    ];
    for (const body of guesses) {
      const res = await http().post('/guesses').send(body).expect(202);
      expect(res.body).toEqual({ jobId: expect.stringMatching(/^JOB[0-9A-Za-z]{11}$/) });
    }

    let board: { guesses: number; players: { player: string; guesses: number; points: number }[] } = { guesses: 0, players: [] };
    await eventually('every guess scored', async () => {
      board = (await http().get('/scores').expect(200)).body;
      return board.guesses === guesses.length;
    });
    const counts = Object.fromEntries(board.players.map((p) => [p.player, p.guesses]));
    expect(counts).toEqual({ masher: 20, ana: 3, ben: 3, chloe: 3 });
    for (const p of board.players) expect(p.points).toBeGreaterThanOrEqual(0);
  });

  it('serves GET /health (terminus) and GET /metrics (prom-client text), and logs each scored guess through its interceptor', async () => {
    const logged: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown) {
      if ((this as unknown as { context?: string }).context === 'Guesses') logged.push(String(message));
    });
    try {
      for (const player of ['ana', 'ben']) await http().post('/guesses').send({ player, guess: GUESS }).expect(202);
      await eventually('both guesses scored', async () => (await http().get('/scores')).body.guesses === 2);
      const health = await http().get('/health').expect(200);
      expect(health.body).toMatchObject({ status: 'ok', info: { echomq: { status: 'up', loops: 1 } } });
      const metrics = await http().get('/metrics').expect(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.text).toContain('# TYPE echomq_jobs_total counter');
      expect(metrics.text).toContain('echomq_handler_seconds_count{queue="cm",outcome="completed"} 2');
      await eventually('two log lines', async () => logged.length === 2);
      expect(logged.sort()).toEqual([
        expect.stringMatching(/^ana 🍎🍌🍇🍓: \d hit\(s\), \d near, \+\d+ \(\d+ ms, attempt 1\)$/),
        expect.stringMatching(/^ben 🍎🍌🍇🍓: /),
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers 400 with a clear message to a bad guess, and queues nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /"player" must be a non-empty string/],
      [{ player: '', guess: GUESS }, /"player"/],
      [{ player: 'a{b}', guess: GUESS }, /without "\{", "\}"/],
      [{ player: 'tab\there', guess: GUESS }, /control characters/],
      [{ player: 'x'.repeat(201), guess: GUESS }, /at most 200 bytes/],
      [{ player: 42, guess: GUESS }, /"player"/],
      [{ player: 'ana' }, /"guess" must be 4 emojis/],
      [{ player: 'ana', guess: 'abcd' }, /"guess" must be 4 emojis/],
      [{ player: 'ana', guess: '🍎🍌🍇' }, /"guess" must be 4 emojis/],
      [[{ player: 'ana', guess: GUESS }], /body must be a JSON object/],
      [{ player: 'ana', guess: GUESS, room: '' }, /"room" must be a non-empty string/],
      [{ player: 'ana', guess: GUESS, room: 'a{b}' }, /"room"/],
      [{ player: 'ana', guess: GUESS, room: 7 }, /"room"/],
    ];
    for (const [body, message] of cases) {
      const res = await http().post('/guesses').send(body as object).expect(400);
      expect(res.body.message).toMatch(message);
    }
    await http().post('/players/%7Bx%7D/pause').expect(400);
    expect((await http().get('/lanes').expect(200)).body).toEqual([]);
    expect((await http().get('/scores').expect(200)).body).toEqual({ round: 1, guesses: 0, players: [] });
  });

  it('puts a player in a room (the lane\'s tenant); a player in another room while guesses wait is a 400', async () => {
    await http().post('/players/zoe/pause').expect(200);
    await http().post('/guesses').send({ player: 'zoe', guess: GUESS, room: 'blue' }).expect(202);
    const res = await http().post('/guesses').send({ player: 'zoe', guess: GUESS, room: 'red' }).expect(400);
    expect(res.body.message).toMatch(/opts\.tenant.*tenant "blue"/);
    expect((await http().get('/lanes').expect(200)).body).toEqual([expect.objectContaining({ group: 'zoe', tenant: 'blue', pending: 1 })]);
    await http().post('/players/zoe/resume').expect(200);
    await eventually('zoe scored', async () => (await http().get('/scores')).body.guesses === 1);
  });

  it('shows the lanes, and a paused player\'s guesses wait until they are resumed', async () => {
    const paused = await http().post('/players/zoe/pause').expect(200);
    expect(paused.body).toMatchObject({ group: 'zoe', paused: true, inRing: false });
    await http().post('/guesses').send({ player: 'zoe', guess: GUESS }).expect(202);
    await http().post('/guesses').send({ player: 'ana', guess: GUESS }).expect(202);
    await eventually('ana scored', async () => (await http().get('/scores')).body.guesses === 1);

    const lanes = (await http().get('/lanes').expect(200)).body;
    expect(lanes).toEqual([{
      group: 'zoe', pending: 1, active: 0, weight: 1, limit: null, paused: true, inRing: false, rate: null, pausedUntil: null, pauseReason: null, tenant: null, maxDepth: null, ordered: false, headWaitMs: expect.any(Number),
    }]);

    const resumed = await http().post('/players/zoe/resume').expect(200);
    expect(resumed.body).toMatchObject({ group: 'zoe', paused: false });
    await eventually('zoe scored', async () => (await http().get('/scores')).body.guesses === 2);
    const board = (await http().get('/scores').expect(200)).body;
    expect(board.players.map((p: { player: string }) => p.player).sort()).toEqual(['ana', 'zoe']);
  });

  it('shows a guess\'s place in line while pending and its score once scored; ?wait=1 answers with the score', async () => {
    await http().post('/players/zoe/pause').expect(200);
    const first = (await http().post('/guesses').send({ player: 'zoe', guess: GUESS }).expect(202)).body.jobId;
    const second = (await http().post('/guesses').send({ player: 'zoe', guess: GUESS }).expect(202)).body.jobId;
    const waiting = (await http().get(`/guesses/${second}`).expect(200)).body;
    expect(waiting).toMatchObject({ jobId: second, player: 'zoe', state: 'pending', position: { laneRank: 1, ahead: 1 } });
    expect(waiting.position).toHaveProperty('estimatedWaitMs');
    await http().post('/players/zoe/resume').expect(200);
    await eventually('both scored', async () => (await http().get(`/guesses/${second}`)).body.state === 'completed');
    const scored = (await http().get(`/guesses/${first}`).expect(200)).body;
    expect(scored).toMatchObject({ jobId: first, state: 'completed', score: { hits: expect.any(Number), points: expect.any(Number) } });
    expect(scored).not.toHaveProperty('position');

    const answered = (await http().post('/guesses?wait=1').send({ player: 'ana', guess: GUESS }).expect(200)).body;
    expect(answered).toMatchObject({ player: 'ana', state: 'completed', score: { hits: expect.any(Number) } });
    await http().get('/guesses/JOB00000000000').expect(404);
    await http().get('/guesses/nope').expect(404);
  });

  it('pauses a player for a while with a reason, and caps a player\'s rate', async () => {
    const paused = await http().post('/players/zoe/pause').send({ forMs: 400, reason: 'cooling down' }).expect(200);
    expect(paused.body).toMatchObject({ group: 'zoe', paused: true, pauseReason: 'cooling down' });
    expect(paused.body.pausedUntil).toBeGreaterThan(Date.now() - 5_000);
    await http().post('/guesses').send({ player: 'zoe', guess: GUESS }).expect(202);
    // Nobody resumes it: the pause ends by itself and the idle consumer wakes for it.
    await eventually('zoe scored after the pause', async () => (await http().get('/scores')).body.guesses === 1);
    expect((await http().post('/players/zoe/pause').send({ forMs: -1 }).expect(400)).body.message).toMatch(/opts\.forMs/);
    expect((await http().post('/players/zoe/pause').send({ reason: 'x'.repeat(201) }).expect(400)).body.message).toMatch(/opts\.reason/);

    const rated = await http().post('/players/ana/rate').send({ max: 1, perMs: 60_000 }).expect(200);
    expect(rated.body).toMatchObject({ group: 'ana', rate: { max: 1, perMs: 60_000 } });
    await http().post('/guesses').send({ player: 'ana', guess: GUESS }).expect(202);
    await http().post('/guesses').send({ player: 'ana', guess: GUESS }).expect(202);
    await eventually('one of ana\'s guesses scored', async () => (await http().get('/scores')).body.guesses === 2);
    expect((await http().get('/lanes').expect(200)).body.find((l: { group: string }) => l.group === 'ana')).toMatchObject({ pending: 1, inRing: false });
    expect((await http().post('/players/ana/rate').send({ max: 0, perMs: 1_000 }).expect(400)).body.message).toMatch(/rate\.max/);
    const cleared = await http().delete('/players/ana/rate').expect(200);
    expect(cleared.body).toMatchObject({ rate: null });
    await eventually('the other guess scored', async () => (await http().get('/scores')).body.guesses === 3);
  });
});

describe('sample app shutdown', () => {
  it('app.close() leaves no Redis connection, socket or timer open', async () => {
    const server = await TestRedisServer.start();
    const admin = server.client();
    const savedUrl = process.env.REDIS_URL;
    try {
      await admin.ping();
      const before = openResources();
      process.env.REDIS_URL = server.url;
      const app = await boot();
      await request(app.getHttpServer()).post('/guesses').send({ player: 'ana', guess: GUESS }).expect(202);
      await eventually('the guess scored', async () => (await request(app.getHttpServer()).get('/scores')).body.guesses === 1);
      expect(openResources().length).toBeGreaterThan(before.length);
      await app.close();
      await eventually('the app\'s Redis connections gone', async () => !/name=echomq/.test((await admin.client('LIST')) as string), 3_000);
      // NOTE: quit() resolves on the server's OK; the socket itself closes a moment later.
      await eventually('no socket or timer of the app left', async () => openResources().join() === before.join(), 2_000);
      expect(openResources()).toEqual(before);
    } finally {
      await admin.quit();
      await server.stop();
      if (savedUrl === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = savedUrl;
    }
  });
});

describe('npm run demo', () => {
  it('starts its own Redis, shows light players served sooner than in one FIFO line, and stops everything', async () => {
    const env = { ...process.env };
    delete env.REDIS_URL;
    delete env.SCORING_COST_MS;
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['sample/run.js', '--demo'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      // NOTE: a cold checkout builds dist/ and sample/dist/ first (about 10 s); a warm one takes about 4 s.
      const timer = setTimeout(() => child.kill('SIGINT'), 45_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve({ code: c, output });
      });
    });
    expect({ code, output }).toMatchObject({ code: 0 });

    const rows = [...output.matchAll(/^ {2}(\w+)\s+([\d,]+) ms\s+([\d,]+) ms/gm)].map((m) => ({
      player: m[1], fair: Number(m[2].replace(/,/g, '')), fifo: Number(m[3].replace(/,/g, '')),
    }));
    expect(rows.map((r) => r.player)).toEqual(['ana', 'ben', 'chloe', 'dev', 'eli']);
    for (const r of rows) expect(r.fair).toBeLessThan(r.fifo);
    // It ends on its own, so it prints no dashboard link that would lead nowhere.
    expect(output).not.toMatch(/echomq\?token=/);
    // The rooms part: the lone player's room gets far more with rooms as tenants than with lanes only.
    const lone = /^ {2}lone\s+([\d.]+)%\s+([\d.]+)%/m.exec(output);
    expect(lone).not.toBeNull();
    expect(Number(lone![1])).toBeGreaterThan(30);
    expect(Number(lone![2])).toBeLessThan(15);

    const port = Number(/started redis-server \S+ on 127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(6379);
    expect(output).toContain(`stopped redis-server on port ${port}`);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(false); });
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  }, 60_000);

  it('with --serve keeps the app and the dashboard it links to up until Ctrl-C', async () => {
    const env = { ...process.env };
    delete env.REDIS_URL;
    delete env.SCORING_COST_MS;
    const child = spawn(process.execPath, ['sample/run.js', '--demo', '--serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    try {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      await until(() => /stays up at (\S+)/.test(output), 45_000, 'the demo to finish its run and stay up');
      const link = /stays up at (\S+)/.exec(output)![1];
      expect(output).toContain(`Live dashboard while the demo runs: ${link}`);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
