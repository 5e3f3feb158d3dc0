import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { badInclude, badScriptFileName, duplicateScript, missingInclude, scriptsDirEmpty } from '../echomq.messages';
import { EchoMqError } from '../errors';

/** @internal One Lua script, ready to register. */
export interface LoadedScript {
  /** verbNoun, from the file name. */
  name: string;
  /** The number of KEYS, from the file name. */
  numberOfKeys: number;
  /** The script with its includes expanded. */
  lua: string;
  /** The same script for `compat: 'echomq'` (the compatMode switch flipped); `lua` when it has none. */
  compatLua: string;
  /** The header's `KEYS[i]` lines, in order. */
  declaredKeys: string[];
  /** Its own code (no header, comments or include lines): the body of its function in the library. */
  body: string;
  /** The includes it runs with, each after the ones it includes. */
  includes: LoadedInclude[];
  /** It calls no command that writes (or may publish): registered `no-writes`, called by FCALL_RO. */
  readOnly: boolean;
}

/**
 * @internal One helper of lua/includes/ as the function library defines it once at its top level
 * (see function-library.ts), where its top-level locals outlive the call that set them.
 */
export interface LoadedInclude {
  name: string;
  /** The includes it names, in order. */
  uses: string[];
  /** Its code without comments or include lines; its per-call locals declared without a value. */
  code: string;
  /** Per `--- @per-call` declaration, the assignment that gives its locals their first value (nil when none). */
  resets: string[];
  /** The names it declares at its top level. */
  defines: string[];
  /** Why it cannot be defined once for every call (a top-level local that is neither marked nor a constant, …). */
  problems: string[];
}

/** The one line of lua/includes/compatMode.lua that the compat variant of a script flips. */
const COMPAT_OFF = /^local COMPAT = false$/m;

/** @internal Code as the `compat: 'echomq'` variant runs it (the compatMode switch flipped). */
export const compatVariant = (code: string): string => code.replace(COMPAT_OFF, 'local COMPAT = true');

const FILE = /^([a-z][A-Za-z]*)-(\d+)\.lua$/;
const INCLUDE = /^--- @include "([A-Za-z]+)"\s*$/gm;
/** A comment line opening with @include: each must be well-formed, or the helper would be silently missing. */
const INCLUDE_LIKE = /^[ \t]*--+[ \t]*@include\b.*$/gm;

/**
 * The marks on an include's top-level locals, each on the line right before the declaration and
 * naming its locals: `--- @per-call a, b` (what one call learnt: the function library sets them
 * to the declaration's value at the start of every call) or `--- @shared a` (kept from call to
 * call: only a table of functions that take every per-call value as an argument or an upvalue).
 */
const MARK = /^--- @(per-call|shared)\b[ \t]*([^:\n]*)/;
const TOP_FUNCTION = /^local\s+function\s+([A-Za-z_]\w*)/;
const TOP_LOCAL = /^local\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?:=\s*(.*?))?\s*$/;
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;
const LITERAL = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|'[^'\\,]*'|"[^"\\,]*"|true|false)$/;
/** Commands that neither write nor publish: a script that calls only these is registered `no-writes`. */
const READ_COMMANDS = new Set(['TIME', 'EXISTS', 'TYPE', 'PTTL', 'TTL', 'GET', 'MGET', 'STRLEN', 'HGET', 'HMGET', 'HGETALL',
  'HKEYS', 'HVALS', 'HLEN', 'HEXISTS', 'HSCAN', 'LLEN', 'LINDEX', 'LPOS', 'LRANGE', 'SMEMBERS', 'SCARD', 'SISMEMBER',
  'SSCAN', 'SCAN', 'ZCARD', 'ZCOUNT', 'ZSCORE', 'ZMSCORE', 'ZRANK', 'ZREVRANK', 'ZRANGE', 'ZRANGEBYSCORE', 'ZREVRANGE', 'ZREVRANGEBYSCORE']);

/** @internal The package's lua/ folder: next to dist/ or lib/ (one level above this file's folder). */
export const LUA_DIR = join(__dirname, '..', '..', 'lua');

function expand(file: string, source: string, includesDir: string, done: Set<string>): string {
  for (const [line] of source.matchAll(INCLUDE_LIKE)) {
    if (!new RegExp(INCLUDE.source).test(line)) throw new EchoMqError(badInclude(file, line.trim()));
  }
  return source.replace(INCLUDE, (_line, name: string) => {
    if (done.has(name)) return '';
    done.add(name);
    let text: string;
    try {
      text = readFileSync(join(includesDir, `${name}.lua`), 'utf8');
    } catch {
      throw new EchoMqError(missingInclude(file, name));
    }
    return expand(file, text, includesDir, done);
  });
}

/**
 * @internal The code of a script without its comments, which are for readers of lua/: the server
 * keeps every script it is sent, and that cache counts against maxmemory (the comments were two
 * thirds of it). Long comments go as Lua's lexer reads them (`--[[` to the first `]]`); a line
 * comment only when it has the line to itself, so no `--` inside a string is touched.
 */
export function withoutComments(lua: string): string {
  return lua.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/^[ \t]*--.*$/gm, '').replace(/\n[ \t]*(?=\n)/g, '').replace(/^\n+/, '');
}

/** Whether `(`, `{` and `[` close on the line: a per-call value must fit on its line. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text.replace(/'[^']*'|"[^"]*"/g, '')) {
    if ('({['.includes(c)) depth += 1;
    if (')}]'.includes(c)) depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/**
 * @internal Reads an include for the function library: its top-level locals must each be a
 * function, an UPPER_CASE constant of literal values, or marked (see MARK); any other, and any
 * top-level statement (which would run once, at library load), is a problem.
 */
export function readInclude(name: string, source: string): LoadedInclude {
  const uses: string[] = [];
  const resets: string[] = [];
  const defines: string[] = [];
  const problems: string[] = [];
  const out: string[] = [];
  let mark: { kind: string; names: string[]; line: string } | undefined;
  for (const line of source.replace(/--\[\[[\s\S]*?\]\]/g, '').split('\n')) {
    const use = /^--- @include "([A-Za-z]+)"\s*$/.exec(line);
    if (use) {
      uses.push(use[1]);
      continue;
    }
    const m = MARK.exec(line);
    if (m) {
      if (mark) problems.push(`${mark.line.trim()} is not right before a top-level local`);
      mark = { kind: m[1], names: m[2].split(',').map((n) => n.trim()).filter(Boolean), line };
      continue;
    }
    if (/^[ \t]*(--.*)?$/.test(line)) {
      out.push(line);
      continue;
    }
    const decl = TOP_FUNCTION.test(line) ? null : TOP_LOCAL.exec(line);
    const names = decl ? decl[1].split(',').map((n) => n.trim()) : [];
    if (mark) {
      const was = mark;
      mark = undefined;
      if (!decl) {
        problems.push(`${was.line.trim()} is not right before a top-level local`);
      } else if (was.names.join(',') !== names.join(',')) {
        problems.push(`${was.line.trim()} does not name the locals it marks (${names.join(', ')})`);
      } else if (was.kind === 'per-call') {
        if (decl[2] !== undefined && !balanced(decl[2])) problems.push(`the per-call value of ${names.join(', ')} must fit on its line`);
        defines.push(...names);
        resets.push(`${names.join(', ')} = ${decl[2] ?? 'nil'}`);
        out.push(`local ${names.join(', ')}`);
        continue;
      } else {
        defines.push(...names);
      }
      out.push(line);
      continue;
    }
    if (/^\s/.test(line) || /^end\b/.test(line)) {
      out.push(line);
      continue;
    }
    const fn = TOP_FUNCTION.exec(line);
    if (fn) {
      defines.push(fn[1]);
    } else if (decl && names.every((n) => CONSTANT.test(n)) && decl[2] !== undefined
      && decl[2].split(',').every((v) => LITERAL.test(v.trim()))) {
      defines.push(...names);
    } else if (decl) {
      problems.push(`the top-level local ${names.join(', ')} is neither a function, an UPPER_CASE constant nor marked --- @per-call or --- @shared`);
    } else {
      problems.push(`the top-level statement ${JSON.stringify(line.trim())} would run once, when the library loads`);
    }
    out.push(line);
  }
  if (mark) problems.push(`${mark.line.trim()} is not right before a top-level local`);
  return { name, uses, code: withoutComments(out.join('\n')), resets, defines, problems: problems.map((p) => `${name}.lua: ${p}`) };
}

/**
 * @internal Whether a script calls only commands that write nothing: every call names its command
 * as a literal of READ_COMMANDS (a computed name counts as a write).
 */
export function readsOnly(lua: string): boolean {
  const code = lua.replace(/^local rcall = redis\.call$/gm, '');
  for (const m of code.matchAll(/\b(?:rcall|redis\.p?call)\b(\s*\(\s*'([A-Za-z]+)')?/g)) {
    if (!m[2] || !READ_COMMANDS.has(m[2].toUpperCase())) return false;
  }
  return true;
}

/** @internal Parses the KEYS[i] lines of a script's header. */
export function declaredKeys(source: string): string[] {
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(source);
  if (!header) return [];
  return [...header[1].matchAll(/^\s*KEYS\[(\d+)\]\s+(\S+)/gm)].map((m) => m[2]);
}

/** @internal Reads every script in `dir` (default: the package's lua/). */
export function loadScripts(dir: string = LUA_DIR): LoadedScript[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.lua'));
  } catch {
    files = [];
  }
  if (files.length === 0) throw new EchoMqError(scriptsDirEmpty(dir));
  const seen = new Map<string, string>();
  const includesDir = join(dir, 'includes');
  const read = new Map<string, LoadedInclude>();
  // NOTE: each include after the ones it names, as expand() places them (missing ones fail there first).
  const includesOf = (name: string, into: LoadedInclude[], done: Set<string>): void => {
    if (done.has(name)) return;
    done.add(name);
    let inc = read.get(name);
    if (!inc) {
      inc = readInclude(name, readFileSync(join(includesDir, `${name}.lua`), 'utf8'));
      read.set(name, inc);
    }
    for (const use of inc.uses) includesOf(use, into, done);
    into.push(inc);
  };
  return files.sort().map((file) => {
    const m = FILE.exec(file);
    if (!m) throw new EchoMqError(badScriptFileName(file));
    // NOTE: scripts register by name alone, so a second file of the same name would be dropped silently.
    const twin = seen.get(m[1]);
    if (twin) throw new EchoMqError(duplicateScript(twin, file));
    seen.set(m[1], file);
    const source = readFileSync(join(dir, file), 'utf8');
    const lua = withoutComments(expand(file, source, includesDir, new Set()));
    const includes: LoadedInclude[] = [];
    const done = new Set<string>();
    for (const [, name] of source.matchAll(INCLUDE)) includesOf(name, includes, done);
    return {
      name: m[1],
      numberOfKeys: Number(m[2]),
      lua,
      compatLua: compatVariant(lua),
      declaredKeys: declaredKeys(source),
      body: withoutComments(source.replace(INCLUDE, '')),
      includes,
      readOnly: readsOnly(lua),
    };
  });
}
