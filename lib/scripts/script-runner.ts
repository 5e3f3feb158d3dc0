import type { Cluster, Redis } from 'ioredis';
import { FunctionLibrary, functionLibrary } from './function-library';
import type { LoadedScript } from './lua-loader';

type Client = Redis | Cluster;
type Args = (string | number)[];

/** @internal How a connection runs the scripts. */
export type ScriptPath = 'fcall' | 'evalsha';

/** @internal Set to `off` (tests, benchmarks) to run every script by EVALSHA, as on a server without FUNCTION. */
export const FUNCTIONS_ENV = 'ECHOMQ_FUNCTIONS';

const VERSION = '1';
/** The registered command of a script (the EVALSHA path); the compat variant has its own. */
const commandOf = (name: string, compat: boolean): string => `echomq:${name}:${VERSION}${compat ? 'c' : ''}`;

const replyError = (err: unknown): err is Error => err instanceof Error && err.name === 'ReplyError';
/** FCALL's NOSCRIPT: the node has no such function (never loaded, flushed, a new master). */
const notLoaded = (err: Error): boolean => /function not found/i.test(err.message);
const loadedAlready = (err: unknown): boolean => replyError(err) && /already exists/i.test(err.message);
/** Refused at maxmemory before it ran (a function without `no-writes` or `allow-oom` is refused whole). */
const outOfMemory = (err: Error): boolean => err.message.startsWith('OOM ');
const unknownCommand = (err: Error): boolean => /unknown command/i.test(err.message);

/**
 * @internal Runs the scripts on one connection: as functions of one library (FCALL) where the
 * server has FUNCTION and the user may load and call it, else by EVALSHA (ioredis's defined
 * commands, EVAL on NOSCRIPT). The path is chosen at the first call and kept for the connection.
 */
export class ScriptRunner {
  private static readonly runners = new WeakMap<Client, Map<boolean, ScriptRunner>>();

  /**
   * The runner of `client` for `compat`: the first one made on it, as a script name is registered
   * once per connection (so a connection given other scripts first keeps running those).
   */
  static of(client: Client, scripts: LoadedScript[], compat: boolean): ScriptRunner {
    let byCompat = ScriptRunner.runners.get(client);
    if (!byCompat) {
      byCompat = new Map();
      ScriptRunner.runners.set(client, byCompat);
    }
    let runner = byCompat.get(compat);
    if (!runner) {
      runner = new ScriptRunner(client, scripts, compat, process.env[FUNCTIONS_ENV] !== 'off');
      byCompat.set(compat, runner);
    } else {
      // NOTE: scripts the first set lacked run by EVALSHA (its library has no function for them).
      runner.define(scripts);
    }
    return runner;
  }

  private readonly library: FunctionLibrary | null;
  private path?: ScriptPath;
  private choosing?: Promise<ScriptPath>;
  private loading?: Promise<boolean>;
  /** FCALL_RO for the read-only functions, except where ioredis would send it to a replica (scaleReads). */
  private readonly readOnlyCalls: boolean;

  private constructor(private readonly client: Client, scripts: LoadedScript[], private readonly compat: boolean, functions: boolean) {
    this.define(scripts);
    const library = functions ? functionLibrary(scripts, compat) : null;
    this.library = library && 'name' in library ? library : null;
    if (!this.library) this.path = 'evalsha';
    const scaleReads = (client as Cluster).isCluster ? (client as Cluster).options.scaleReads : 'master';
    this.readOnlyCalls = scaleReads === 'master';
  }

  /** The scripts by name, for a call with more keys than a script declares (see evalsha). */
  private readonly byName = new Map<string, LoadedScript>();

  /** Registers the EVALSHA command of each script the connection does not have yet. */
  private define(scripts: LoadedScript[]): void {
    for (const s of scripts) {
      if (!this.byName.has(s.name)) this.byName.set(s.name, s);
      const command = commandOf(s.name, this.compat);
      if (!(command in this.client)) this.client.defineCommand(command, { numberOfKeys: s.numberOfKeys, lua: this.compat ? s.compatLua : s.lua });
    }
  }

  /** The path this connection runs on, chosen now if it was not yet. */
  async chosenPath(): Promise<ScriptPath> {
    return this.path ?? this.choose();
  }

  /** Runs script `name`; sent at once once the path is chosen, so calls keep the order they were made in. */
  exec(name: string, keys: string[], args: Args): Promise<unknown> {
    if (this.path === 'fcall') return this.fcall(name, keys, args);
    if (this.path === 'evalsha') return this.evalsha(name, keys, args);
    return this.choose().then(() => this.exec(name, keys, args));
  }

  private evalsha(name: string, keys: string[], args: Args): Promise<unknown> {
    let command = commandOf(name, this.compat);
    // NOTE: a call with more keys than the script declares (a change of the shard count's fenced
    // call, see LaneScripts.fencedBy) goes by a command of the same script with that many keys.
    const s = this.byName.get(name);
    if (s && keys.length !== s.numberOfKeys) {
      command = `${command}:${keys.length}`;
      if (!(command in this.client)) this.client.defineCommand(command, { numberOfKeys: keys.length, lua: this.compat ? s.compatLua : s.lua });
    }
    const run = (this.client as unknown as Record<string, (...a: Args) => Promise<unknown>>)[command];
    return run.call(this.client, ...keys, ...args);
  }

  /** `atMaxmemory`: the server refused the function at maxmemory, so its twin runs (see LibraryFunction). */
  private fcall(name: string, keys: string[], args: Args, reloaded = false, atMaxmemory = false): Promise<unknown> {
    const fn = this.library!.functions.get(name);
    if (!fn) return this.evalsha(name, keys, args);
    const command = fn.readOnly && this.readOnlyCalls ? 'FCALL_RO' : 'FCALL';
    return this.client.call(command, atMaxmemory ? fn.atMaxmemory! : fn.name, keys.length, ...keys, ...args)
      .catch((err: unknown) => this.recover(err, name, keys, args, reloaded, atMaxmemory));
  }

  /** A refused FCALL: each refusal handled here came before the function ran, so the call may go again. */
  private async recover(err: unknown, name: string, keys: string[], args: Args, reloaded: boolean, atMaxmemory: boolean): Promise<unknown> {
    if (!replyError(err)) throw err;
    // NOTE: a function that may write is refused whole at maxmemory; EVAL only at a first write
    // that may grow memory, which is what lets consumers drain (README, Server settings).
    if (outOfMemory(err) && !atMaxmemory && this.library!.functions.get(name)!.atMaxmemory) {
      return this.fcall(name, keys, args, reloaded, true);
    }
    if (unknownCommand(err)) {
      this.path = 'evalsha';
      return this.evalsha(name, keys, args);
    }
    if (!notLoaded(err)) throw err;
    if (!reloaded) {
      if (await this.load()) return this.fcall(name, keys, args, true, atMaxmemory);
      this.path = 'evalsha';
    }
    return this.evalsha(name, keys, args);
  }

  private choose(): Promise<ScriptPath> {
    this.choosing ??= this.probe().then((path) => {
      this.path = path;
      return path;
    }).finally(() => {
      this.choosing = undefined;
    });
    return this.choosing;
  }

  /**
   * Calls the library's `ready` function with FCALL and FCALL_RO, loading the library when the
   * server does not have it: any refusal (no FUNCTION on the server, an ACL user without the
   * rights) means EVALSHA. A connection error decides nothing; the next call probes again.
   */
  private async probe(): Promise<ScriptPath> {
    const ready = () => Promise.all([this.client.call('FCALL', this.library!.ready, 0), this.client.call('FCALL_RO', this.library!.ready, 0)]);
    try {
      await ready();
      return 'fcall';
    } catch (err) {
      if (!replyError(err)) throw err;
      if (!notLoaded(err) || !(await this.load())) return 'evalsha';
    }
    try {
      await ready();
      return 'fcall';
    } catch (err) {
      if (!replyError(err)) throw err;
      return 'evalsha';
    }
  }

  /** Loads the library on the server (on every master of a cluster); false when a server refuses it. */
  private load(): Promise<boolean> {
    this.loading ??= this.loadOnMasters().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadOnMasters(): Promise<boolean> {
    const nodes: Redis[] = (this.client as Cluster).isCluster ? (this.client as Cluster).nodes('master') : [this.client as Redis];
    try {
      await Promise.all(nodes.map((node) => node.call('FUNCTION', 'LOAD', this.library!.code).catch((err: unknown) => {
        if (!loadedAlready(err)) throw err;
      })));
      return true;
    } catch (err) {
      if (!replyError(err)) throw err;
      return false;
    }
  }
}
