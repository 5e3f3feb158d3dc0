import { execFileSync } from 'child_process';
import * as fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'fs';
import type IORedis from 'ioredis';
import { tmpdir } from 'os';
import { join } from 'path';
import { PROMOTE_PER_CLAIM } from '../../lib/echomq.constants';
import type { LaneJob } from '../../lib/interfaces';
import type { LanesService } from '../../lib/lanes.service';
import { LaneScripts } from '../../lib/scripts/lane-scripts';
import { loadScripts } from '../../lib/scripts/lua-loader';
import { keysOf } from '../support/engine';
import { lanesOn, testQueue } from '../support/lanes';
import { TestRedisServer } from '../support/redis-server';

/**
 * The last commit before fairness modes (cost, time) reworked the ring's primitives: its lua/ is
 * what `jobs` fairness must still serve, step for step.
 */
const BEFORE_FAIRNESS_MODES = '7bc949c';

const GROUPS = ['a', 'b', 'c', 'd', 'e'];
const TENANT_OF: Record<string, string | undefined> = { a: 'A', b: 'A', c: 'B', d: undefined, e: undefined };

type Op =
  | { op: 'submit'; g: string; n: number } | { op: 'claim' } | { op: 'claimMany'; n: number }
  | { op: 'wclaim' } | { op: 'wclaimMany'; turns: number } | { op: 'complete'; i: number } | { op: 'fail'; i: number }
  | { op: 'release'; i: number } | { op: 'weight'; g: string; w: number } | { op: 'limit'; g: string; n: number | null }
  | { op: 'pause'; g: string } | { op: 'resume'; g: string } | { op: 'tenantWeight'; t: string; w: number }
  | { op: 'drain'; g: string };

const group = fc.constantFrom(...GROUPS);
const small = fc.integer({ min: 1, max: 3 });
const OPS: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('submit' as const), g: group, n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 4, arbitrary: fc.constant({ op: 'claim' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('claimMany' as const), n: small }) },
  { weight: 2, arbitrary: fc.constant({ op: 'wclaim' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('wclaimMany' as const), turns: small }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('complete' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fail' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('weight' as const), g: group, w: small }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('limit' as const), g: group, n: fc.option(small, { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pause' as const), g: group }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('resume' as const), g: group }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tenantWeight' as const), t: fc.constantFrom('A', 'B'), w: small }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drain' as const), g: group }) },
);

/**
 * Today's scripts that take one key (the claims, submit, complete, completeMany, fail) derive the other keys from the base;
 * the earlier ones were passed every key. Each such earlier script is given, under today's file
 * name, a first line that builds its KEYS from the one key and the base as today's callers pass
 * them (and complete its two trailing arguments, which today's caller leaves out when they are
 * the defaults), so it runs unchanged behind today's TypeScript.
 */
function toOneKey(luaDir: string): void {
  const today = new Map(loadScripts().map((s) => [s.name, s.numberOfKeys]));
  for (const file of readdirSync(luaDir).filter((f) => f.endsWith('.lua'))) {
    const [, name, n] = /^(\w+)-(\d+)\.lua$/.exec(file)!;
    if (today.get(name) !== 1 || n === '1') continue;
    const source = readFileSync(join(luaDir, file), 'utf8');
    const header = /^--\[\[[\s\S]*?\]\]\n/.exec(source)![0];
    // NOTE: the one key passed is the job's row where the script had one, else the ring; a submit's
    // lane is built from its group (ARGV[3]), as today's submit builds it.
    const keys = [...header.matchAll(/^\s*KEYS\[\d+\]\s+\S+\s+emq:\{q\}:(\S+)/gm)].map((m) => {
      if (m[1] === 'job:<id>') return 'KEYS[1]';
      if (m[1] === 'g:<group>:pending' && name === 'submit') return "ARGV[1] .. 'g:' .. ARGV[3] .. ':pending'";
      if (m[1].includes('<')) throw new Error(`${file}: no rule for key ${m[1]}`);
      return `ARGV[1] .. '${m[1]}'`;
    });
    expect(keys).toHaveLength(Number(n));
    // NOTE: today's complete leaves out keepMs and result when they are 0 and '' (see LaneScripts.complete).
    // NOTE: and a one-job claim leaves out steps and promoteMax when they are 1 and PROMOTE_PER_CLAIM.
    const argv = name === 'complete' ? "local ARGV = { ARGV[1], ARGV[2], ARGV[3], ARGV[4] or '0', ARGV[5] or '' }\n"
      : name === 'claim' ? `local ARGV = { ARGV[1], ARGV[2], ARGV[3] or '1', ARGV[4] or '${PROMOTE_PER_CLAIM}', ARGV[5] }\n` : '';
    writeFileSync(join(luaDir, `${name}-1.lua`), `${header}${argv}local KEYS = { ${keys.join(', ')} }\n${source.slice(header.length)}`);
    unlinkSync(join(luaDir, file));
  }
}

/**
 * Puts an earlier script behind today's caller: `spread` (Lua lines) rebuilds its ARGV from today's
 * shorter call, after the header, and `reply` (Lua lines) replaces its last line, `return out`, with
 * today's reply built from its `out`.
 */
function behindToday(file: string, spread: string[], reply: string[]): void {
  const source = readFileSync(file, 'utf8');
  const header = /^--\[\[[\s\S]*?\]\]\n/.exec(source)![0];
  const body = source.slice(header.length);
  expect(body).toMatch(/\nreturn out\n?$/);
  writeFileSync(file, `${header}${spread.join('\n')}\n${body.replace(/\nreturn out\n?$/, `\n${reply.join('\n')}\n`)}`);
}

/**
 * Today's submitMany is passed 3 values per job (4 with a tenant) when the other four are their
 * defaults, and names in its reply only the jobs not admitted under their own id ('done', item,
 * status, id, ...); today's completeMany is passed 2 values per ack when none has a result, and
 * replies the count completed and the places of the acks that did nothing. The earlier ones (the
 * earlier completeMany already given its one key by toOneKey) spread such calls to 7 (9) values per
 * job and 3 per ack, and their replies of every job are turned into today's.
 */
function toTodaysBatches(luaDir: string): void {
  behindToday(join(luaDir, 'submitMany-10.lua'), [
    'local ARGV = (function(a)',
    '  local n = tonumber(a[2])',
    '  if not n or n == 0 or (#a ~= 2 + n * 3 and #a ~= 2 + n * 4) then return a end',
    '  local s, b = (#a - 2) / n, { a[1], a[2] }',
    '  for i = 0, n - 1 do',
    '    local o = 3 + i * s',
    "    for _, v in ipairs({ a[o], a[o + 1], a[o + 2], '', '0', '0', '0' }) do b[#b + 1] = v end",
    "    if s == 4 then b[#b + 1] = ''; b[#b + 1] = a[o + 3] end",
    '  end',
    '  return b',
    'end)(ARGV)',
  ], [
    "local reply = { 'done' }",
    "for i = 1, #out, 2 do if out[i] ~= 'ok' then reply[#reply + 1] = (i + 1) / 2; reply[#reply + 1] = out[i]; reply[#reply + 1] = out[i + 1] end end",
    'return reply',
  ]);
  behindToday(join(luaDir, 'completeMany-1.lua'), [
    'local ARGV = (function(a)',
    '  local n = tonumber(a[2])',
    '  if not n or n == 0 or #a ~= 3 + n * 2 then return a end',
    '  local b = { a[1], a[2], a[3] }',
    "  for i = 0, n - 1 do b[#b + 1] = a[4 + i * 2]; b[#b + 1] = a[5 + i * 2]; b[#b + 1] = '' end",
    '  return b',
    'end)(ARGV)',
  ], [
    'local reply = { 0 }',
    'for i = 1, #out do if out[i] == 1 then reply[1] = reply[1] + 1 else reply[#reply + 1] = i end end',
    'return reply',
  ]);
}

describe("'jobs' fairness serves exactly what the scripts before fairness modes served", () => {
  let server: TestRedisServer;
  let before: IORedis;
  let now: IORedis;
  let old: LanesService;
  let current: LanesService;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'echomq-before-fairness-'));
    // The earlier scripts, from the repository's history (a clone has it; see the README's test command).
    const archive = execFileSync('git', ['archive', BEFORE_FAIRNESS_MODES, 'lua'], { cwd: join(__dirname, '..', '..') });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    toOneKey(join(dir, 'lua'));
    toTodaysBatches(join(dir, 'lua'));
    server = await TestRedisServer.start();
    before = server.client();
    now = server.client();
    // NOTE: the first registration of a script name on a connection is the one it runs (see
    // LaneScripts), so this connection runs the earlier scripts for every script they had.
    new LaneScripts(before, loadScripts(join(dir, 'lua')));
    old = lanesOn(before, { maxAttempts: 2, backoff: { delayMs: 0 } });
    current = lanesOn(now, { maxAttempts: 2, backoff: { delayMs: 0 } });
  });
  afterAll(async () => {
    await before.quit();
    await now.quit();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a plan on one queue; returns what each step served (lane and payload) and the ring after each. */
  async function run(lanes: LanesService, client: IORedis, q: string, plan: Op[]): Promise<string[]> {
    const trace: string[] = [];
    const held: LaneJob[] = [];
    const take = (i: number): LaneJob | undefined => (held.length ? held.splice(i % held.length, 1)[0] : undefined);
    const show = (jobs: LaneJob[]) => jobs.map((j) => `${j.group}${String(j.payload)}`).join(',');
    let n = 0;
    for (const step of plan) {
      let out = '';
      switch (step.op) {
        case 'submit': {
          const items = [...Array(step.n).keys()].map(() => ({ group: step.g, payload: n++, opts: TENANT_OF[step.g] ? { tenant: TENANT_OF[step.g] } : {} }));
          await lanes.submitMany(q, items);
          break;
        }
        case 'claim': { const j = await lanes.claim(q, { leaseMs: 60_000 }); if (j) held.push(j); out = show(j ? [j] : []); break; }
        case 'claimMany': { const { jobs } = await lanes.claimMany(q, step.n, { leaseMs: 60_000 }); held.push(...jobs); out = show(jobs); break; }
        case 'wclaim': { const jobs = await lanes.wclaim(q, { leaseMs: 60_000 }); held.push(...jobs); out = show(jobs); break; }
        case 'wclaimMany': { const jobs = (await lanes.wclaimMany(q, step.turns, { leaseMs: 60_000 })).turns.flat(); held.push(...jobs); out = show(jobs); break; }
        case 'complete': { const j = take(step.i); if (j) out = String(await lanes.complete(q, j.id, j.attempt)); break; }
        case 'fail': { const j = take(step.i); if (j) out = String(await lanes.fail(q, j.id, j.attempt, 'planned')); break; }
        case 'release': { const j = take(step.i); if (j) out = String(await lanes.release(q, j.id, j.attempt)); break; }
        case 'weight': await lanes.weight(q, step.g, step.w); break;
        case 'limit': await lanes.limit(q, step.g, step.n); break;
        case 'pause': await lanes.pause(q, step.g); break;
        case 'resume': await lanes.resume(q, step.g); break;
        case 'tenantWeight': await lanes.tenantWeight(q, step.t, step.w); break;
        case 'drain': out = String(await lanes.drain(q, { group: step.g })); break;
      }
      const k = keysOf(q);
      const rings = await Promise.all([k.ring, k.tenantRing('A'), k.tenantRing('B')].map((key) => client.lrange(key, 0, -1)));
      trace.push(`${step.op}: ${out} | ${rings.map((r) => r.join(' ')).join(' / ')}`);
    }
    return trace;
  }

  it('runs the earlier claim script on one connection and today\'s on the other', () => {
    const luaOf = (c: IORedis) => (c as unknown as { scriptsSet: Record<string, { lua: string }> }).scriptsSet['echomq:claim:1'].lua;
    expect(luaOf(before)).not.toMatch(/ringOps/);
    expect(luaOf(now)).toMatch(/ringOps/);
  });

  it('the same plan on both gives the same claims, acks and ring order after every step', async () => {
    await fc.assert(fc.asyncProperty(fc.array(OPS, { minLength: 1, maxLength: 50, size: 'max' }), async (plan) => {
      const q1 = testQueue();
      const q2 = testQueue();
      const a = await run(old, before, q1, plan);
      const b = await run(current, now, q2, plan);
      expect(b).toEqual(a);
      await before.flushall();
    }), { numRuns: Number(process.env.ECHOMQ_PLANS ?? 60), seed: Number(process.env.ECHOMQ_SEED ?? 20261202), endOnFailure: false });
  }, 300_000);
});
