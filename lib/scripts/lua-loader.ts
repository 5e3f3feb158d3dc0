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
}

/** The one line of lua/includes/compatMode.lua that the compat variant of a script flips. */
const COMPAT_OFF = /^local COMPAT = false$/m;

const FILE = /^([a-z][A-Za-z]*)-(\d+)\.lua$/;
const INCLUDE = /^--- @include "([A-Za-z]+)"\s*$/gm;
/** A comment line opening with @include: each must be well-formed, or the helper would be silently missing. */
const INCLUDE_LIKE = /^[ \t]*--+[ \t]*@include\b.*$/gm;

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
  return files.sort().map((file) => {
    const m = FILE.exec(file);
    if (!m) throw new EchoMqError(badScriptFileName(file));
    // NOTE: scripts register by name alone, so a second file of the same name would be dropped silently.
    const twin = seen.get(m[1]);
    if (twin) throw new EchoMqError(duplicateScript(twin, file));
    seen.set(m[1], file);
    const source = readFileSync(join(dir, file), 'utf8');
    const lua = withoutComments(expand(file, source, join(dir, 'includes'), new Set()));
    return {
      name: m[1],
      numberOfKeys: Number(m[2]),
      lua,
      compatLua: lua.replace(COMPAT_OFF, 'local COMPAT = true'),
      declaredKeys: declaredKeys(source),
    };
  });
}
