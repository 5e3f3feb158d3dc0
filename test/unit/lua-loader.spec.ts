import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EchoMqError } from '../../lib/errors';
import { SCRIPT_OF } from '../../lib/scripts/lane-scripts';
import { LUA_DIR, declaredKeys, loadScripts, withoutComments } from '../../lib/scripts/lua-loader';

const HEADER = (keys: number) =>
  `--[[\n  test script\n\n${[...Array(keys)].map((_, i) => `  KEYS[${i + 1}] k${i + 1}  emq:{q}:k${i + 1}`).join('\n')}\n]]\n`;

describe('the Lua loader', () => {
  const scripts = loadScripts();

  it('loads every lua/*.lua file of the package', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).sort();
    expect(scripts.map((s) => `${s.name}-${s.numberOfKeys}.lua`)).toEqual(files);
  });

  it.each(scripts.map((s) => [`${s.name}-${s.numberOfKeys}.lua`, s] as const))(
    '%s: N in the file name equals the KEYS[i] lines of its header, numbered 1..N',
    (file, s) => {
      expect(s.declaredKeys).toHaveLength(s.numberOfKeys);
      const source = readFileSync(join(LUA_DIR, file), 'utf8');
      const header = /^--\[\[([\s\S]*?)\]\]/.exec(source)![1];
      const numbers = [...header.matchAll(/^\s*KEYS\[(\d+)\]/gm)].map((m) => Number(m[1]));
      expect(numbers).toEqual([...Array(s.numberOfKeys).keys()].map((i) => i + 1));
      // Every key the body uses is declared.
      const used = [...source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(Math.max(...used)).toBeLessThanOrEqual(s.numberOfKeys);
      // The header documents the reply and the clock (STYLE §7).
      expect(header).toMatch(/Reply:/);
      expect(header).toMatch(/Clock:/);
    },
  );

  it('maps every contract operation to exactly one script file, and every script to an operation', () => {
    const names = scripts.map((s) => s.name).sort();
    expect([...new Set(Object.values(SCRIPT_OF))].sort()).toEqual(names);
    expect(new Set(names).size).toBe(names.length);
  });

  it('expands every include once, leaving no include line and no undefined helper behind', () => {
    const includes = readdirSync(join(LUA_DIR, 'includes')).filter((f) => f.endsWith('.lua'));
    for (const file of includes) {
      const name = file.replace(/\.lua$/, '');
      expect(readFileSync(join(LUA_DIR, 'includes', file), 'utf8')).toMatch(new RegExp(`^local function ${name}\\(`, 'm'));
    }
    for (const s of scripts) {
      expect(s.lua).not.toMatch(/@include/);
      const code = s.lua.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, '');
      for (const file of includes) {
        const name = file.replace(/\.lua$/, '');
        const defs = code.match(new RegExp(`^local function ${name}\\(`, 'gm')) ?? [];
        const calls = code.match(new RegExp(`\\b${name}\\(`, 'g')) ?? [];
        expect({ script: s.name, name, defs: defs.length }).toEqual({ script: s.name, name, defs: calls.length > 0 ? 1 : 0 });
        if (defs.length) {
          // Defined before its first use.
          expect(code.indexOf(`local function ${name}(`)).toBe(code.search(new RegExp(`\\b${name}\\(`)) - 'local function '.length);
        }
      }
    }
  });

  it('sends the server code without comments: long ones, and line comments that have their line to themselves', () => {
    const source = "--[[\n  header\n  KEYS[1] a\n]]\nlocal x = t[y[1]] -- kept: after code\n  -- gone\nlocal s = '-- a string'\n--[[ one ]] local z = 1\n";
    expect(withoutComments(source)).toBe("local x = t[y[1]] -- kept: after code\nlocal s = '-- a string'\n local z = 1\n");
    for (const s of scripts) {
      expect(s.lua).not.toMatch(/--\[\[/);
      expect(s.lua).not.toMatch(/^[ \t]*--/m);
    }
    // The header (KEYS lines) is read from the source, so the declared keys are still known.
    expect(scripts.find((s) => s.name === 'claim')!.declaredKeys[0]).toBe('ring');
  });

  it('declaredKeys reads only the opening header block', () => {
    expect(declaredKeys(`${HEADER(2)}-- KEYS[3] not in the header\n`)).toEqual(['k1', 'k2']);
    expect(declaredKeys('local x = 1\n--[[ KEYS[1] late ]]')).toEqual([]);
  });

  describe('on a directory of its own', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'echomq-lua-'));
      mkdirSync(join(dir, 'includes'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const loadError = (): EchoMqError => {
      try {
        loadScripts(dir);
      } catch (err) {
        expect(err).toBeInstanceOf(EchoMqError);
        return err as EchoMqError;
      }
      throw new Error('loadScripts did not fail');
    };

    it('loads a well-formed script and expands nested includes once, in dependency order', () => {
      writeFileSync(join(dir, 'includes', 'inner.lua'), 'local function inner() return 1 end\n');
      writeFileSync(join(dir, 'includes', 'outer.lua'), '--- @include "inner"\nlocal function outer() return inner() end\n');
      writeFileSync(join(dir, 'doThing-2.lua'), `${HEADER(2)}--- @include "outer"\n--- @include "inner"\nreturn outer()\n`);
      const [s] = loadScripts(dir);
      expect(s).toMatchObject({ name: 'doThing', numberOfKeys: 2, declaredKeys: ['k1', 'k2'] });
      expect(s.lua.match(/local function inner/g)).toHaveLength(1);
      expect(s.lua.indexOf('local function inner')).toBeLessThan(s.lua.indexOf('local function outer'));
    });

    it('fails on an empty directory and on a missing one', () => {
      expect(loadError().message).toMatch(/found no Lua scripts/);
      rmSync(dir, { recursive: true, force: true });
      expect(loadError().message).toContain(dir);
    });

    it.each(['Claim-1.lua', 'claim.lua', 'claim-x.lua', 'claim_1.lua', 'claim-1-2.lua', '1claim-1.lua', 'claim-.lua', 'cla im-1.lua'])(
      'fails on the bad file name %s',
      (file) => {
        writeFileSync(join(dir, 'good-0.lua'), 'return 1\n');
        writeFileSync(join(dir, file), 'return 1\n');
        const err = loadError();
        expect(err.message).toContain(file);
        expect(err.message).toMatch(/<verbNoun>-<numberOfKeys>\.lua/);
      },
    );

    it('ignores files that are not .lua', () => {
      writeFileSync(join(dir, 'good-0.lua'), 'return 1\n');
      writeFileSync(join(dir, 'README.md'), '# notes\n');
      expect(loadScripts(dir).map((s) => s.name)).toEqual(['good']);
    });

    it('fails on two scripts of the same name', () => {
      writeFileSync(join(dir, 'claim-1.lua'), `${HEADER(1)}return 1\n`);
      writeFileSync(join(dir, 'claim-2.lua'), `${HEADER(2)}return 1\n`);
      const err = loadError();
      expect(err.message).toMatch(/claim-1\.lua/);
      expect(err.message).toMatch(/claim-2\.lua/);
    });

    it('fails on a missing include, naming the script and the include', () => {
      writeFileSync(join(dir, 'claim-1.lua'), `${HEADER(1)}--- @include "nowhere"\nreturn 1\n`);
      const err = loadError();
      expect(err.message).toContain('claim-1.lua');
      expect(err.message).toContain('"nowhere"');
    });

    it('fails on a missing include nested in an include', () => {
      writeFileSync(join(dir, 'includes', 'outer.lua'), '--- @include "gone"\nlocal function outer() end\n');
      writeFileSync(join(dir, 'claim-1.lua'), `${HEADER(1)}--- @include "outer"\nreturn 1\n`);
      expect(loadError().message).toContain('"gone"');
    });

    it.each(['--- @include "bad-name"', "--- @include 'single'", '--- @include nowhere', '---@include "tight"', '--- @include "trailing" x'])(
      'fails on the malformed include line %s instead of silently skipping it',
      (line) => {
        writeFileSync(join(dir, 'includes', 'single.lua'), 'local function single() end\n');
        writeFileSync(join(dir, 'claim-1.lua'), `${HEADER(1)}${line}\nreturn 1\n`);
        const err = loadError();
        expect(err.message).toContain('claim-1.lua');
        expect(err.message).toContain('@include');
      },
    );
  });
});
