import { createHash } from 'crypto';
import { compatVariant, LoadedInclude, LoadedScript } from './lua-loader';

/** @internal A script's function in the library. */
export interface LibraryFunction {
  /** Its registered name. */
  name: string;
  /** Registered `no-writes`: callable with FCALL_RO, and not refused at maxmemory. */
  readOnly: boolean;
  /**
   * A writing script's twin (`allow-oom`), for when the server refused `name` at maxmemory: it
   * refuses the call at its first write only if that write may grow memory, as EVAL does.
   */
  atMaxmemory?: string;
}

/**
 * @internal Every write command the scripts call (Redis's `write` flag), true for those that may
 * grow memory (`denyoom`): EVAL refuses a script at maxmemory exactly when its first write is one
 * of those. An integration test checks this against the server's COMMAND INFO.
 */
export const WRITE_COMMANDS: Readonly<Record<string, boolean>> = {
  SET: true, INCRBY: true, HSET: true, HSETNX: true, HINCRBY: true, LPUSH: true, RPUSH: true, LMOVE: true, SADD: true,
  ZADD: true, ZINCRBY: true,
  DEL: false, UNLINK: false, PEXPIRE: false, HDEL: false, LPOP: false, RPOP: false, LREM: false, LTRIM: false, SREM: false,
  ZREM: false, ZPOPMIN: false,
};

/**
 * @internal Every script as one Lua function library (FUNCTION LOAD): the includes defined once at
 * its top level, each script a function that starts by resetting the per-call locals of its
 * includes. The name carries a hash of the code, so two versions of the package (and the compat
 * variant) live side by side on one server.
 */
export interface FunctionLibrary {
  name: string;
  /** What FUNCTION LOAD takes. */
  code: string;
  /** By script name. */
  functions: Map<string, LibraryFunction>;
  /** A function that writes nothing and answers 1: what a connection's first call probes with. */
  ready: string;
}

/** The placeholder of the library's name while its hash is computed. */
const NAME = 'echomq_@';

/** What every function runs first: the server's calls, or its twin's checked ones (the twin sets oomCheck). */
export const CALLS = 'if oomCheck then rcall, rpcall, oomCheck, oomWritten = oomCall, oomPcall, false, false else rcall, rpcall = redis.call, redis.pcall end';

/** The names Lua code reads, calls or assigns, fields (a.b, a:b) and strings left out. */
export function namesUsed(code: string): Set<string> {
  const bare = code.replace(/\[(=*)\[[\s\S]*?\]\1\]/g, ' ').replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, ' ');
  return new Set(bare.match(/(?<![\w:]|(?<!\.)\.)[A-Za-z_]\w*/g) ?? []);
}

/** The names code declares for itself anywhere (locals, parameters, loop variables). */
function ownNames(code: string): Set<string> {
  const own = new Set<string>();
  const add = (list: string) => list.split(',').map((n) => n.trim()).filter((n) => /^[A-Za-z_]\w*$/.test(n)).forEach((n) => own.add(n));
  for (const m of code.matchAll(/\blocal\s+function\s+([A-Za-z_]\w*)/g)) own.add(m[1]);
  for (const m of code.matchAll(/\blocal\s+(?!function\b)([A-Za-z_][\w\s,]*?)(?==|$|\n)/gm)) add(m[1]);
  for (const m of code.matchAll(/\bfunction\b[\w\s.:]*\(([^)]*)\)/g)) add(m[1]);
  for (const m of code.matchAll(/\bfor\s+([\w\s,]+?)\s*(?:=|\bin\b)/g)) add(m[1]);
  return own;
}

/**
 * @internal Builds the library of `scripts` (their compat variant with `compat`), or says why it
 * cannot: an include whose top-level state is not marked (see readInclude), two includes that
 * declare one name, or an include that uses a name of another placed after it (in the library's
 * single scope it would read a global). Scripts that cannot be hoisted run by EVALSHA instead.
 */
export function functionLibrary(scripts: LoadedScript[], compat = false): FunctionLibrary | { refused: string } {
  const order: LoadedInclude[] = [];
  const placed = new Set<string>();
  for (const s of scripts) {
    for (const inc of s.includes) {
      if (!placed.has(inc.name)) {
        placed.add(inc.name);
        order.push(inc);
      }
    }
  }
  const problems = order.flatMap((inc) => inc.problems);
  const definedAt = new Map<string, number>();
  order.forEach((inc, i) => {
    for (const name of inc.defines) {
      const other = definedAt.get(name);
      if (other !== undefined) problems.push(`${name} is declared by both ${order[other].name}.lua and ${inc.name}.lua`);
      definedAt.set(name, i);
    }
  });
  order.forEach((inc, i) => {
    const own = ownNames(inc.code);
    for (const name of namesUsed(inc.code)) {
      if (name === 'KEYS' || name === 'ARGV') problems.push(`${inc.name}.lua reads ${name}, which only a script's own code may`);
      const at = definedAt.get(name);
      if (at !== undefined && at > i && !own.has(name)) {
        problems.push(`${inc.name}.lua uses ${name} of ${order[at].name}.lua without including it`);
      }
    }
  });
  if (problems.length > 0) return { refused: problems.join('; ') };

  // NOTE: every call goes through rcall/rpcall, so the maxmemory twin can put its check in between.
  const viaUpvalues = (code: string) => code.replace(/^local rcall = redis\.call$/gm, 'local rcall = rcall')
    .replace(/\bredis\.call\(/g, 'rcall(').replace(/\bredis\.pcall\(/g, 'rpcall(');
  const parts = [`#!lua name=${NAME}`, 'local rcall, rpcall, oomCheck, oomWritten'];
  for (const inc of order) parts.push(viaUpvalues(compat ? compatVariant(inc.code) : inc.code));
  const writes = Object.entries(WRITE_COMMANDS).map(([c, grows]) => `${c} = ${grows}`).join(', ');
  parts.push(
    `local OOM_WRITES = { ${writes} }`,
    "local OOM_REFUSED = \"OOM command not allowed when used memory > 'maxmemory'.\"",
    'local function oomRefuses(command)',
    '  local grows = OOM_WRITES[string.upper(command)]',
    '  if grows == nil or oomWritten then return false end',
    '  if grows then return true end',
    '  oomWritten = true',
    '  return false',
    'end',
    'local function oomCall(command, ...)',
    '  if oomRefuses(command) then error({ err = OOM_REFUSED }) end',
    '  return redis.call(command, ...)',
    'end',
    'local function oomPcall(command, ...)',
    '  if oomRefuses(command) then return { err = OOM_REFUSED } end',
    '  return redis.pcall(command, ...)',
    'end',
    'local function register(name, run, readOnly)',
    "  redis.register_function{function_name=name, callback=run, flags=readOnly and {'no-writes'} or {}}",
    '  if readOnly then return end',
    "  redis.register_function{function_name=name .. '__oom', callback=function(KEYS, ARGV) oomCheck = true return run(KEYS, ARGV) end, flags={'allow-oom'}}",
    'end',
    `redis.register_function{function_name='${NAME}__ready', callback=function() return 1 end, flags={'no-writes'}}`,
  );
  const callsLeft: string[] = [];
  for (const s of scripts) {
    const body = viaUpvalues(s.body).replace(/\n+$/, '');
    if (/\bredis\.p?call\b/.test(body) || s.includes.some((inc) => /\bredis\.p?call\b/.test(viaUpvalues(inc.code)))) callsLeft.push(s.name);
    parts.push(`register('${NAME}_${s.name}', function(KEYS, ARGV)`, CALLS, ...s.includes.flatMap((inc) => inc.resets), body,
      `end${s.readOnly ? ', true' : ''})`);
  }
  if (callsLeft.length > 0) return { refused: `redis.call or redis.pcall used other than as a call in ${callsLeft.join(', ')}` };
  const draft = `${parts.join('\n')}\n`;
  const name = `echomq_${createHash('sha1').update(draft).digest('hex').slice(0, 16)}`;
  const functions = new Map(scripts.map((s) => [s.name, {
    name: `${name}_${s.name}`, readOnly: s.readOnly, ...(s.readOnly ? {} : { atMaxmemory: `${name}_${s.name}__oom` }),
  }]));
  return { name, code: draft.split(NAME).join(name), functions, ready: `${name}__ready` };
}
