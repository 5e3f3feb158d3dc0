import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CALLS, FunctionLibrary, functionLibrary } from '../../lib/scripts/function-library';
import { LUA_DIR, loadScripts, readInclude, readsOnly } from '../../lib/scripts/lua-loader';

const HEADER = '--[[\n  test script\n  KEYS[1] k1  emq:{q}:k1\n]]\nlocal rcall = redis.call\n';

const built = (lib: FunctionLibrary | { refused: string }): FunctionLibrary => {
  if ('refused' in lib) throw new Error(`the library was refused: ${lib.refused}`);
  return lib;
};

/** The statements a function of the library runs before its script's own code. */
function prologue(lib: FunctionLibrary, script: string): string[] {
  const start = lib.code.indexOf(`register('${lib.name}_${script}', function(KEYS, ARGV)\n`);
  expect(start).toBeGreaterThan(0);
  const lines = lib.code.slice(start).split('\n').slice(1);
  return lines.slice(0, lines.indexOf('local rcall = rcall'));
}

describe('the function library', () => {
  const scripts = loadScripts();

  it('every include declares its top-level state: each local is a function, an UPPER_CASE constant of literals, or marked @per-call / @shared', () => {
    const includes = readdirSync(join(LUA_DIR, 'includes')).filter((f) => f.endsWith('.lua'));
    expect(includes.length).toBeGreaterThan(10);
    const problems = includes.flatMap((f) => readInclude(f.replace(/\.lua$/, ''), readFileSync(join(LUA_DIR, 'includes', f), 'utf8')).problems);
    // A new cache in an include: mark it --- @per-call (reset at every call) or --- @shared (see lua-loader.ts).
    expect(problems).toEqual([]);
  });

  it('builds for the package, default and compat, under names of their own', () => {
    const lib = built(functionLibrary(scripts));
    const compat = built(functionLibrary(scripts, true));
    expect(lib.name).toMatch(/^echomq_[0-9a-f]{16}$/);
    expect(compat.name).not.toBe(lib.name);
    expect(lib.code.startsWith(`#!lua name=${lib.name}\n`)).toBe(true);
    expect(lib.code).toMatch(/^local COMPAT = false$/m);
    expect(compat.code).toMatch(/^local COMPAT = true$/m);
    expect(compat.code.split(compat.name).join(lib.name).replace('local COMPAT = true', 'local COMPAT = false')).toBe(lib.code);
    expect([...lib.functions.keys()].sort()).toEqual(scripts.map((s) => s.name).sort());
    for (const [script, fn] of lib.functions) expect(fn.name).toBe(`${lib.name}_${script}`);
    expect(built(functionLibrary(scripts)).code).toBe(lib.code);
  });

  it('defines each helper once, at its top level, before the first function', () => {
    const lib = built(functionLibrary(scripts));
    // NOTE: a script's own code may declare a local of a helper's name (locateJob's laneDepth): its function's own.
    const top = lib.code.slice(0, lib.code.indexOf('redis.register_function'));
    for (const f of readdirSync(join(LUA_DIR, 'includes'))) {
      const name = f.replace(/\.lua$/, '');
      const defs = top.match(new RegExp(`^local function ${name}\\(`, 'gm')) ?? [];
      const used = scripts.some((s) => s.includes.some((i) => i.name === name));
      expect({ name, defs: defs.length }).toEqual({ name, defs: used ? 1 : 0 });
    }
  });

  it('starts every function by resetting the per-call locals of its includes, and only those', () => {
    const lib = built(functionLibrary(scripts));
    for (const s of scripts) {
      expect({ script: s.name, prologue: prologue(lib, s.name) })
        .toEqual({ script: s.name, prologue: [CALLS, ...s.includes.flatMap((i) => i.resets)] });
    }
    expect(prologue(lib, 'claim')).toEqual(expect.arrayContaining([
      'wakeRoom = nil', 'fairBy, fairMoving, anyTenant, ringPlain, fairTimeMean = nil', 'anyPaused, anyLimit, anyWeightOrRate = true, true, true',
      'serveLeases = {}', 'strByte = string.byte', 'tenantSettings = nil']));
    expect(prologue(lib, 'complete')).toEqual(expect.arrayContaining(['completeBatch = nil', 'eventsHeard, eventsTenanted = nil']));
    // The per-call locals are declared at the top without their value (which may need what the load cannot read).
    expect(lib.code).toMatch(/^local serveLeases$/m);
    expect(lib.code).toMatch(/^local strByte$/m);
  });

  it('registers no-writes exactly the scripts that call no command that writes', () => {
    expect(scripts.filter((s) => s.readOnly).map((s) => s.name)).toEqual(['bandDepths', 'deadList', 'laneShares', 'readJob', 'shardRate', 'tenantInfo', 'topTenants']);
    const lib = built(functionLibrary(scripts));
    for (const s of scripts) {
      const registered = lib.code.slice(lib.code.indexOf(`register('${lib.name}_${s.name}'`)).split('\nregister(')[0];
      expect({ script: s.name, noWrites: /\nend, true\)\n?$/.test(registered), twin: lib.functions.get(s.name)!.atMaxmemory })
        .toEqual({ script: s.name, noWrites: s.readOnly, twin: s.readOnly ? undefined : `${lib.name}_${s.name}__oom` });
    }
    expect(readsOnly("local rcall = redis.call\nreturn rcall('HGET', KEYS[1], 'a')")).toBe(true);
    expect(readsOnly("return redis.call('ZRANGE', KEYS[1], 0, 0)")).toBe(true);
    expect(readsOnly("rcall('HGET', KEYS[1], 'a')\nrcall('HSET', KEYS[1], 'a', 1)")).toBe(false);
    expect(readsOnly("return redis.pcall('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')")).toBe(false);
    expect(readsOnly("return rcall(kind == 1 and 'GET' or 'DEL', KEYS[1])")).toBe(false);
    expect(readsOnly("rcall('PUBLISH', 'c', 'm')")).toBe(false);
  });

  it('sends every call through rcall and rpcall, which the maxmemory twin of a writing function checks first', () => {
    const lib = built(functionLibrary(scripts));
    // Only the twin's own checked calls call the server directly.
    expect(lib.code.match(/\bredis\.call\(/g)).toEqual(['redis.call(']);
    expect(lib.code.match(/\bredis\.pcall\(/g)).toEqual(['redis.pcall(']);
    expect(lib.code).toContain("local moved = rpcall('LMOVE', ringKey, ringKey, 'LEFT', 'RIGHT')");
    expect(lib.code.match(/^local rcall = rcall$/gm)).toHaveLength(scripts.length);
    expect(lib.code.match(/^local rcall = redis\.call$/gm)).toBeNull();
  });

  describe('on a directory of its own', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'echomq-lib-'));
      mkdirSync(join(dir, 'includes'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const include = (name: string, code: string) => writeFileSync(join(dir, 'includes', `${name}.lua`), code);
    const script = (includes: string[], body = 'return 1\n') =>
      writeFileSync(join(dir, 'doThing-1.lua'), `${HEADER}${includes.map((i) => `--- @include "${i}"\n`).join('')}${body}`);
    const library = () => functionLibrary(loadScripts(dir));

    it('refuses an include whose top-level local is neither a function, a constant nor marked, naming both', () => {
      include('cache', 'local seen = {}\nlocal function cache(k) seen[k] = true end\n');
      script(['cache']);
      expect(readInclude('cache', readFileSync(join(dir, 'includes', 'cache.lua'), 'utf8')).problems)
        .toEqual([expect.stringMatching(/^cache\.lua: the top-level local seen is neither/)]);
      expect(library()).toEqual({ refused: expect.stringContaining('cache.lua: the top-level local seen') });
      // The EVALSHA script is built as before.
      expect(loadScripts(dir)[0].lua).toContain('local seen = {}');
    });

    it('declares a @per-call local without its value, and sets it to that value at the start of every function that includes it', () => {
      include('cache', '-- what one call saw\n--- @per-call seen, count: reset at every call\nlocal seen, count = {}, 0\nlocal function cache(k) seen[k] = true end\n');
      include('other', 'local function other() return 2 end\n');
      script(['cache']);
      writeFileSync(join(dir, 'another-1.lua'), `${HEADER}--- @include "other"\nreturn other()\n`);
      const lib = built(library());
      expect(lib.code).toMatch(/^local seen, count$/m);
      expect(lib.code).not.toContain('@per-call');
      expect(prologue(lib, 'doThing')).toEqual([CALLS, 'seen, count = {}, 0']);
      expect(prologue(lib, 'another')).toEqual([CALLS]);
      // The EVALSHA script keeps the declaration as written, its mark stripped with the comments.
      expect(loadScripts(dir).find((s) => s.name === 'doThing')!.lua).toContain('local seen, count = {}, 0\n');
    });

    it('keeps a @shared local and its value at the top level, reset by nobody', () => {
      include('table', '--- @shared fns\nlocal fns\nlocal function table() fns = fns or {} return fns end\n');
      script(['table']);
      const lib = built(library());
      expect(lib.code).toMatch(/^local fns$/m);
      expect(prologue(lib, 'doThing')).toEqual([CALLS]);
    });

    it.each([
      ['a mark naming other locals', '--- @per-call other\nlocal seen\nlocal function inc() end\n', /does not name the locals it marks/],
      ['a mark before a function', '--- @per-call inc\nlocal function inc() end\n', /is not right before a top-level local/],
      ['a mark at the end', 'local function inc() end\n--- @per-call seen\n', /is not right before a top-level local/],
      ['a per-call value over two lines', '--- @per-call seen\nlocal seen = {\n  1 }\nlocal function inc() end\n', /must fit on its line/],
      ['a constant that is computed', 'local MAX = 5 + 1\nlocal function inc() end\n', /top-level local MAX is neither/],
      ['a constant not in capitals', 'local Max = 5\nlocal function inc() end\n', /top-level local Max is neither/],
      ['a top-level statement', 'local function inc() end\ninc()\n', /top-level statement "inc\(\)" would run once/],
    ])('reads %s as a problem', (_what, code, problem) => {
      include('inc', code);
      expect(readInclude('inc', code).problems).toEqual([expect.stringMatching(problem)]);
    });

    it('takes UPPER_CASE constants of literal values as they are', () => {
      const code = "local MAX = 5\nlocal A, B_2 = 'x', true\nlocal NEVER = 9e15\nlocal function inc() end\n";
      expect(readInclude('inc', code)).toMatchObject({ problems: [], resets: [], defines: ['MAX', 'A', 'B_2', 'NEVER', 'inc'] });
    });

    it('refuses an include that uses a helper it does not include, placed after it', () => {
      include('first', 'local function first() return second() end\n');
      include('second', 'local function second() return 2 end\n');
      script(['first', 'second']);
      expect(library()).toEqual({ refused: 'first.lua uses second of second.lua without including it' });
      include('first', '--- @include "second"\nlocal function first() return second() end\n');
      expect(built(library()).code.indexOf('local function second')).toBeLessThan(built(library()).code.indexOf('local function first'));
    });

    it('refuses an include that reads KEYS or ARGV, and two includes that declare one name', () => {
      include('keys', 'local function keys() return KEYS[1] end\n');
      script(['keys']);
      expect(library()).toEqual({ refused: expect.stringContaining('keys.lua reads KEYS') });
      include('keys', 'local function keys() return 1 end\nlocal function twice() end\n');
      include('again', 'local function again() end\nlocal function twice() end\n');
      script(['keys', 'again']);
      expect(library()).toEqual({ refused: 'twice is declared by both keys.lua and again.lua' });
    });
  });
});
