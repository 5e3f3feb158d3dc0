import { createHash } from 'crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import IORedis from 'ioredis';
import { tmpdir } from 'os';
import { join } from 'path';
import { lanesOn, snapshot, testQueue } from '../support/lanes';
import { engineFixture, keysOf, waitPastServerTime } from '../support/engine';
import { TestRedisServer } from '../support/redis-server';
import { onScriptPath, SCRIPT_PATHS, scriptCalls } from '../support/script-path';
import { EchoMqError } from '../../lib/errors';
import { WRITE_COMMANDS } from '../../lib/scripts/function-library';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { LUA_DIR, loadScripts } from '../../lib/scripts/lua-loader';
import type { LanesService } from '../../lib/lanes.service';

/** The echomq libraries on the server (FUNCTION LIST), by name, with their functions' names and flags. */
async function libraries(client: IORedis): Promise<Map<string, Map<string, string[]>>> {
  const out = new Map<string, Map<string, string[]>>();
  for (const lib of (await client.call('FUNCTION', 'LIST')) as unknown[][]) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < lib.length; i += 2) fields.set(String(lib[i]), lib[i + 1]);
    const fns = new Map<string, string[]>();
    for (const fn of fields.get('functions') as unknown[][]) {
      const f = new Map<string, unknown>();
      for (let i = 0; i + 1 < fn.length; i += 2) f.set(String(fn[i]), fn[i + 1]);
      fns.set(String(f.get('name')), (f.get('flags') as string[]).map(String));
    }
    out.set(String(fields.get('library_name')), fns);
  }
  return out;
}

describe.each(SCRIPT_PATHS)('scripts on the server (%s): a forgotten script or library, server-side checks, OOM', (path) => {
  onScriptPath(path);
  const engine = engineFixture({ maxAttempts: 1, backoff: { delayMs: 0 } });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  it(`runs every script by ${path === 'fcall' ? 'FCALL (FCALL_RO for the read-only ones)' : 'EVALSHA'}, and by nothing else`, async () => {
    const q = queues.queue();
    expect(await new LaneScripts(client).path()).toBe(path);
    const before = await scriptCalls(client);
    await lanes.submit(q, 'a', { n: 1 });
    const job = (await lanes.claim(q))!;
    expect(await lanes.dead(q)).toEqual([]);
    expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
    const after = await scriptCalls(client);
    const ran = (c: keyof typeof after) => after[c] - before[c];
    // NOTE: a script's first EVALSHA on a server is answered NOSCRIPT (not counted) and sent again by EVAL.
    expect({ evalsha: ran('evalsha') + ran('eval'), fcall: ran('fcall'), fcall_ro: ran('fcall_ro') })
      .toEqual(path === 'fcall' ? { evalsha: 0, fcall: 3, fcall_ro: 1 } : { evalsha: 4, fcall: 0, fcall_ro: 0 });
  });

  it(`${path === 'fcall' ? 'FUNCTION FLUSH' : 'NOSCRIPT: SCRIPT FLUSH'}: after it every operation still works`, async () => {
    const q = queues.queue();
    const shas = loadScripts().map((s) => createHash('sha1').update(s.lua).digest('hex'));
    const cached = path === 'fcall'
      ? async () => (await libraries(client)).size
      : async () => ((await client.script('EXISTS', ...shas)) as number[]).filter((x) => x === 1).length;
    const step = async <T>(op: () => Promise<T>, runsScript = true): Promise<T> => {
      if (path === 'fcall') await client.call('FUNCTION', 'FLUSH');
      else await client.script('FLUSH');
      expect(await cached()).toBe(0);
      const result = await op();
      if (runsScript) expect(await cached()).toBeGreaterThan(0);
      return result;
    };
    const a = await step(() => lanes.submit(q, 'a', { n: 1 }));
    const [b] = await step(() => lanes.submitMany(q, [{ group: 'b', payload: { n: 2 } }, { group: 'a', payload: { n: 3 } }]));
    await step(() => lanes.weight(q, 'a', 2));
    await step(() => lanes.limit(q, 'a', 5));
    await step(() => lanes.pause(q, 'b'));
    expect(await step(() => lanes.lane(q, 'b'))).toMatchObject({ paused: true, pending: 1 });
    await step(() => lanes.resume(q, 'b'));
    const turn = await step(() => lanes.wclaim(q));
    expect(turn.map((j) => j.payload)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(await step(() => lanes.extend(q, a, turn[0].attempt, 10_000))).toBe(true);
    expect(await step(() => lanes.complete(q, a, turn[0].attempt))).toBe(true);
    expect(await step(() => lanes.release(q, turn[1].id, turn[1].attempt))).toBe(true);
    const many = await step(() => lanes.claimMany(q, 2, { leaseMs: 10 }));
    expect(many.jobs.map((j) => j.id).sort()).toEqual([b, turn[1].id].sort());
    await waitPastServerTime(client, many.jobs[0].leaseUntil);
    expect(await step(() => lanes.reap(q))).toBe(2);
    expect(await step(() => lanes.dead(q))).toHaveLength(2);
    expect(await step(() => lanes.retryDead(q, b))).toBe(true);
    const job = await step(() => lanes.claim(q));
    expect(job!.id).toBe(b);
    expect(await step(() => lanes.fail(q, b, job!.attempt, 'x'))).toBe('dead');
    await step(() => lanes.submit(q, 'c', {}, { delayMs: 1 }));
    await waitPastServerTime(client, Number(await client.zscore(keysOf(q).schedule, (await client.zrange(keysOf(q).schedule, 0, 0))[0])));
    expect(await step(() => lanes.promote(q))).toBe(1);
    expect((await step(() => lanes.lanes(q))).map((l) => l.group)).toEqual(['a', 'c']);
    expect(await step(() => lanes.stats(q), false)).toMatchObject({ totals: { completed: 1, retried: 0, dead: 3 }, paused: false });
  });

  it('a script refuses arguments that do not match its keys, as an EchoMqError, writing nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', {});
    const scripts = new LaneScripts(client);
    const k = keysOf(q);
    const other = keysOf(queues.queue());
    const before = await snapshot(client, q);
    const refused: [string, () => Promise<unknown>][] = [
      ['claim lease 0', () => scripts.claim(k, 0, 1, 10)],
      ['claim steps 0', () => scripts.claim(k, 1000, 0, 10)],
      ['wclaim negative max', () => scripts.wclaim(k, 1000, -1, 10)],
      ['wclaimMany turns 0', () => scripts.wclaimMany(k, 1000, 0, 0, 0, 10)],
      ['wclaimMany turns 1001', () => scripts.wclaimMany(k, 1000, 1001, 0, 0, 10)],
      ['wclaimMany untilJobs 1001', () => scripts.wclaimMany(k, 1000, 1, 0, 1001, 10)],
      ['limit 1.5', () => scripts.limit(k, 'a', 1.5)],
      ['limit 0', () => scripts.limit(k, 'a', 0)],
      ['weight 0', () => scripts.weight(k, 'a', 0)],
      ['weight 2.5', () => scripts.weight(k, 'a', 2.5)],
      ['extend lease 0', () => scripts.extend(k, 'JOB00000000000', 1, 0)],
      ['reap max 0', () => scripts.reap(k, 1, 0)],
      ['promote max 0', () => scripts.promote(k, 0)],
      ['fail factor 0.5', () => scripts.fail(k, 'JOB00000000000', 1, 'e', { maxAttempts: 1, delayMs: 0, factor: 0.5, maxDelayMs: 0 })],
      ['lanes max 0', () => scripts.lanes(k, 0)],
      ['dead count 0', () => scripts.dead(k, 0, 0)],
      ['submit delay -1', () => scripts.submit(k, { id: 'JOB00000000001', group: 'a', payload: '1', dedupKey: '', delayMs: -1, maxAttempts: 0, own: false })],
      ['submitMany bad item', () => scripts.submitMany(k, [
        { id: 'JOB00000000002', group: 'a', payload: '1', dedupKey: '', delayMs: 0, maxAttempts: 0, own: false },
        { id: 'JOB00000000003', group: 'a', payload: '1', dedupKey: '', delayMs: -5, maxAttempts: 0, own: false },
      ])],
      ['cross-queue base', () => scripts.claim({ ...k, base: other.base } as never, 1000, 1, 10)],
      ['complete cross-queue base', () => scripts.complete({ ...k, base: other.base, job: (id: string) => k.job(id) } as never, 'JOB00000000000', 1, '', 0)],
      ['submit cross-queue base', () => scripts.submit({ ...k, base: other.base, job: (id: string) => k.job(id) } as never,
        { id: 'JOB00000000004', group: 'a', payload: '1', dedupKey: '', delayMs: 0, maxAttempts: 0, own: false })],
      ['fail cross-queue base', () => scripts.fail({ ...k, base: other.base, job: (id: string) => k.job(id) } as never, 'JOB00000000000', 1, 'e',
        { maxAttempts: 1, delayMs: 0, factor: 1, maxDelayMs: 0 })],
    ];
    for (const [what, call] of refused) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect({ what, isEchoMq: error instanceof EchoMqError }).toEqual({ what, isEchoMq: true });
      expect((error as Error).message).toMatch(/failed on the server: .*echomq:/);
    }
    expect(await snapshot(client, q)).toEqual(before);
  });

  it('at maxmemory, as EVAL decides: a script whose first write may grow memory is refused; one that first frees memory, or writes nothing, runs', async () => {
    const q = queues.queue();
    await lanes.submitMany(q, [{ group: 'a', payload: 1 }, { group: 'b', payload: 2 }]);
    await client.config('SET', 'maxmemory', '1');
    try {
      const refused = await lanes.weight(q, 'a', 3).then(() => undefined, (e: unknown) => e);
      expect((refused as EchoMqError).code).toBe('OUT_OF_MEMORY');
      // claim's first write is the ring's LMOVE, refused and made as LPOP and RPUSH instead (see rotateRing).
      const job = (await lanes.claim(q, { leaseMs: 60_000 }))!;
      expect(job.payload).toBe(1);
      expect(await lanes.extend(q, job.id, job.attempt, 60_000)).toBe(true);
      expect(await lanes.release(q, job.id, job.attempt + 1)).toBe(false);
      expect(await lanes.complete(q, job.id, job.attempt)).toBe(true);
      expect(await lanes.dead(q)).toEqual([]);
    } finally {
      await client.config('SET', 'maxmemory', '0');
    }
    expect((await lanes.lanes(q)).map((l) => [l.group, l.weight, l.pending])).toEqual([['b', 1, 1]]);
  });

  it('a server out of memory refuses a write with a clear EchoMqError and writes nothing', async () => {
    const q = queues.queue();
    await lanes.submit(q, 'a', {});
    const before = await snapshot(client, q);
    await client.config('SET', 'maxmemory', '1');
    try {
      const error = await lanes.submit(q, 'a', { more: true }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(EchoMqError);
      expect((error as EchoMqError).message).toMatch(/out of memory/);
      expect((error as EchoMqError).queue).toBe(q);
    } finally {
      await client.config('SET', 'maxmemory', '0');
    }
    expect(await snapshot(client, q)).toEqual(before);
  });
});

describe('the function library (FCALL)', () => {
  let server: TestRedisServer;
  let client: IORedis;
  let lanes: LanesService;
  const opened: IORedis[] = [];
  const connect = (on: TestRedisServer = server): IORedis => {
    const c = on.client();
    opened.push(c);
    return c;
  };
  onScriptPath('fcall');
  beforeAll(async () => {
    server = await TestRedisServer.start();
    client = connect();
    lanes = lanesOn(client);
  });
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.quit()));
    await server.stop();
  });

  it('one library per version of the scripts and per mode, side by side: every script a function, the read-only ones no-writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echomq-lua-next-'));
    try {
      // Another version of the package: the same scripts but one line of one of them.
      cpSync(LUA_DIR, join(dir, 'lua'), { recursive: true });
      const file = join(dir, 'lua', 'readJob-3.lua');
      writeFileSync(file, readFileSync(file, 'utf8').replace('local rcall = redis.call\n', 'local rcall = redis.call\nlocal version = 2\n'));
      const next = connect();
      new LaneScripts(next, loadScripts(join(dir, 'lua')));
      const compat = connect();
      const q = testQueue();
      const id = await lanes.submit(q, 'a', 1);
      expect(await lanesOn(next).job(q, id)).toMatchObject({ id, state: 'pending' });
      expect(await lanesOn(compat, { compat: 'echomq' }).job(q, id)).toMatchObject({ id, state: 'pending' });
      const libs = await libraries(client);
      expect(libs.size).toBe(3);
      const scripts = loadScripts();
      for (const [lib, fns] of libs) {
        expect(lib).toMatch(/^echomq_[0-9a-f]{16}$/);
        expect([...fns.keys()].sort()).toEqual([`${lib}__ready`, ...scripts.map((s) => `${lib}_${s.name}`),
          ...scripts.filter((s) => !s.readOnly).map((s) => `${lib}_${s.name}__oom`)].sort());
        expect(fns.get(`${lib}_readJob`)).toEqual(['no-writes']);
        expect(fns.get(`${lib}_claim`)).toEqual([]);
        expect(fns.get(`${lib}_claim__oom`)).toEqual(['allow-oom']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('knows which commands the scripts call write, and which of those may grow memory, as the server does', async () => {
    const called = new Set<string>();
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.lua') ? [join(dir, e.name)] : []));
    for (const file of files(LUA_DIR)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:rcall|redis\.p?call)\(\s*'([A-Za-z]+)'/g)) called.add(m[1].toUpperCase());
    }
    const said: Record<string, boolean> = {};
    for (const command of [...called].sort()) {
      const [info] = (await client.call('COMMAND', 'INFO', command)) as [unknown[]];
      const flags = (info[2] as string[]).map(String);
      if (flags.includes('write')) said[command] = flags.includes('denyoom');
    }
    expect(said).toEqual(Object.fromEntries(Object.entries(WRITE_COMMANDS).filter(([c]) => called.has(c)).sort()));
    expect(Object.keys(WRITE_COMMANDS).every((c) => called.has(c))).toBe(true);
  });

  it('a server without FUNCTION (as Redis 6.2) runs every script by EVALSHA', async () => {
    const old = await TestRedisServer.start(['--rename-command', 'FUNCTION', '', '--rename-command', 'FCALL', '', '--rename-command', 'FCALL_RO', '']);
    try {
      const c = connect(old);
      const onOld = lanesOn(c);
      const q = testQueue();
      await onOld.submit(q, 'a', 1);
      const job = (await onOld.claim(q))!;
      expect(await onOld.complete(q, job.id, job.attempt)).toBe(true);
      expect(await new LaneScripts(c).path()).toBe('evalsha');
      const calls = await scriptCalls(c);
      expect({ evalsha: calls.evalsha + calls.eval, fcall: calls.fcall, fcall_ro: calls.fcall_ro }).toEqual({ evalsha: 3, fcall: 0, fcall_ro: 0 });
    } finally {
      await old.stop();
    }
  });

  it('what one call learnt does not outlive it: a paused queue\'s wake room, a heard queue\'s listeners', async () => {
    const [paused, open] = [testQueue(), testQueue()];
    await lanes.pauseQueue(paused);
    await lanes.submit(paused, 'a', 1);
    await lanes.submit(open, 'a', 1);
    expect([await client.llen(keysOf(paused).wake), await client.llen(keysOf(open).wake)]).toEqual([0, 1]);

    const [heard, unheard] = [keysOf(testQueue()), keysOf(testQueue())];
    await new LaneScripts(client).announceListener(heard, 'listener', 60_000);
    const sub = connect();
    const got: string[] = [];
    sub.on('message', (channel: string) => got.push(channel));
    await sub.subscribe(heard.eventsChannel, unheard.eventsChannel);
    await lanes.submit(unheard.queue, 'a', 1);
    await lanes.submit(heard.queue, 'a', 1);
    await lanes.submit(unheard.queue, 'a', 2);
    await lanes.submit(heard.queue, 'a', 2);
    await client.ping();
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([heard.eventsChannel, heard.eventsChannel]);
  });
});
