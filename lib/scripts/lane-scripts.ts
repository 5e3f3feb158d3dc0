import type { Cluster, Redis } from 'ioredis';
import { CLAIM_BATCH_MAX, PROMOTE_PER_CLAIM } from '../echomq.constants';
import type { FairnessBy, LaneInfo, LaneJob, LaneRate } from '../interfaces';
import { jobFields, toClaim, toJob } from './claim-replies';
import { announcedRow, JobRow, LocatedJob, StatsRow, toJobRow } from './job-replies';
import { LaneKeys } from '../redis/lane-keys';
import { withinCallTimeout } from '../redis/call-deadline';
import { fromServerError } from '../redis/server-errors';
import { shardsChanging } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { laneRowKeys, toLaneInfo, toLaneInfos } from './lane-row';
import { LoadedScript, loadScripts } from './lua-loader';
import { ScriptPath, ScriptRunner } from './script-runner';

/** @internal A connection that scripts run on. */
export type RedisClient = Redis | Cluster;

/** @internal A job to admit, as the submit scripts take it. */
export interface AdmitArgs {
  id: string;
  group: string;
  payload: string;
  dedupKey: string;
  delayMs: number;
  maxAttempts: number;
  own: boolean;
  /** The submit's trace context (W3C), when tracing is on and a span was active. */
  tc?: string;
  /** The lane's tenant the submit named. */
  tenant?: string;
  /**
   * On a sharded queue: `tenant` is not the submit's but the lane's binding, which this process
   * knows (see LanePlacement.route): a lane found there without it and holding no job has let it go.
   */
  byBinding?: true;
  /** The job's cost when it is not 1 (see lua/includes/admit.lua). */
  cost?: number;
}

/** @internal What a submit script said of one job. */
export interface AdmitResult {
  status: 'ok' | 'dup' | 'collide';
  id: string;
}

/** @internal A submit refused because its lane holds jobs under another tenant (`current`, '' for none); `item` is 0-based. */
export interface TenantRefusal {
  item: number;
  current: string;
}

/** @internal A submit refused because its lane holds its maxDepth `n`; `item` is 0-based. */
export interface DepthRefusal {
  item: number;
  n: number;
}

/**
 * @internal A lane that a later chunk of a submitMany names a tenant for, checked with the first
 * chunk (see lua/submitMany): `first` is the 0-based place in the call of the first item naming
 * it, `ahead` whether an earlier item of the call puts a job into the lane before it.
 */
export interface LaterTenant {
  group: string;
  tenant: string;
  first: number;
  ahead: boolean;
}

/** @internal What a check-only submitMany found of a lane with a maxDepth: its room, the chunk's new jobs for it, its ceiling. */
export interface LaneRoom {
  group: string;
  room: number;
  fresh: number;
  n: number;
}

/**
 * @internal What a submit script answered: one result per job, or the refusal of the whole call, or
 * (a shard of a sharded queue, asked) the lanes that live elsewhere, lane -> the tenant its home binds it
 * to ('' when the lane left the tenant the job named: ask its home), or that the shard is fenced for another
 * shard map than the one the call was routed by (see lua/setShards), and nothing was written.
 */
export type AdmitReply<T> = T | { refused: TenantRefusal } | { full: DepthRefusal } | { moved: Map<string, string> } | { stale: true };

/**
 * @internal What bindLanes said: every lane bound, or the first it refused (0-based `item`), or the
 * first whose binding changed since the caller read its version.
 */
export type BindReply = { ok: true } | { refused: TenantRefusal } | { settings: number } | { changed: number };

/** @internal A lane as bindLanes takes it (see lua/bindLanes). */
export interface BindArgs {
  group: string;
  /** The tenant to bind it to; '' (with `from`) to unbind it. */
  tenant: string;
  /** The tenant's shard is not the lane's home. */
  away: boolean;
  /** The tenant the lane is bound to now, when it moves or is unbound (absent: bound to none). */
  from?: string;
  /** The binding's version as the caller read it (see ShardRouter.binding): written only if unchanged. */
  expect?: string;
}

/** @internal Backoff and attempts a fail call applies. */
export interface FailPolicy {
  maxAttempts: number;
  delayMs: number;
  factor: number;
  maxDelayMs: number;
}

/** @internal The contract operations and their script files, one to one. */
export const SCRIPT_OF = {
  submit: 'submit',
  submitMany: 'submitMany',
  claim: 'claim',
  wclaim: 'wclaim',
  wclaimMany: 'wclaimMany',
  complete: 'complete',
  completeMany: 'completeMany',
  fail: 'fail',
  extend: 'extend',
  extendMany: 'extendMany',
  reap: 'reap',
  promote: 'promote',
  weight: 'weight',
  limit: 'limit',
  rate: 'rate',
  pause: 'pause',
  resume: 'resume',
  retryDead: 'retryDead',
  release: 'release',
  lane: 'laneInfo',
  lanes: 'lanes',
  dead: 'deadList',
  bury: 'buryJobs',
  pauseQueue: 'pauseQueue',
  resumeQueue: 'resumeQueue',
  job: 'readJob',
  waitFor: 'watchJob',
  position: 'locateJob',
  scanLanes: 'laneRows',
  stats: 'readStats',
  nodeLease: 'nodeLease',
  adoptLanes: 'adoptLanes',
  cancel: 'cancelJob',
  drain: 'drainLanes',
  clean: 'cleanJobs',
  obliterate: 'obliterateQueue',
  progress: 'reportProgress',
  listen: 'announceListener',
  tenantWeight: 'tenantWeight',
  tenantLimit: 'tenantLimit',
  pauseTenant: 'pauseTenant',
  resumeTenant: 'resumeTenant',
  tenant: 'tenantInfo',
  queueLimit: 'queueLimit',
  topTenants: 'topTenants',
  maxDepth: 'maxDepth',
  ordered: 'ordered',
  fairness: 'fairness',
  shares: 'laneShares',
  oldestLanes: 'oldestLanes',
  topLanes: 'bandDepths',
  shards: 'setShards',
  foldTotals: 'foldTotals',
  bindLanes: 'bindLanes',
  moveLane: 'moveLane',
  shardRate: 'shardRate',
} as const;

/** @internal What a claim script served: the jobs handed out, the next due time, and how many it dead-lettered. */
export interface Served {
  jobs: LaneJob[];
  dueInMs: number;
  buried: number;
  /** The entries of the ring after the call, when it was asked for (a sharded queue's claims; -1 when not told). */
  ringSize?: number;
}

/** @internal The last_error of a job dead-lettered because its payload does not parse. */
export const NOT_JSON_REASON = 'payload is not JSON';

/** @internal A script's name (its file without the key count). */
export type ScriptName = (typeof SCRIPT_OF)[keyof typeof SCRIPT_OF];

/** The scripts a change of the shard count calls with its fence (see LaneScripts.fencedBy). */
const CHANGE_FENCED: ReadonlySet<ScriptName> = new Set<ScriptName>(['weight', 'limit', 'maxDepth', 'ordered', 'rate', 'pause', 'resume',
  'tenantWeight', 'tenantLimit', 'pauseTenant', 'resumeTenant', 'bindLanes', 'moveLane']);
type Reply = unknown;

interface RunOptions {
  /** The key prefix named in an ACL refusal's advice. @default the first key's */
  prefix?: string;
  /** Not bound by callTimeoutMs. */
  unbounded?: boolean;
  onLate?: (reply: Reply) => void;
}

/**
 * @internal The only caller of the Lua scripts: runs them on a connection (see ScriptRunner: one
 * function library by FCALL, or EVALSHA) and turns their replies into typed results.
 */
export class LaneScripts {
  private readonly runner: ScriptRunner;

  /**
   * @param compat run the scripts' `compat: 'echomq'` variants (ring membership read from the ring
   * list, flat jobs kept in the flat pending set), for queues the EchoMQ reference writes too.
   */
  /**
   * @param callTimeoutMs the module option: how long a call waits for its reply (null: no bound)
   */
  constructor(private readonly client: RedisClient, scripts: LoadedScript[] = loadScripts(), compat = false,
    private readonly callTimeoutMs: number | null = null) {
    this.runner = ScriptRunner.of(client, scripts, compat);
  }

  /** How this connection runs the scripts (FCALL or EVALSHA), chosen now if no call has chosen yet. */
  path(): Promise<ScriptPath> {
    return this.runner.chosenPath();
  }

  /**
   * @internal Runs a script within callTimeoutMs (unless `unbounded`: the library's own bookkeeping, whose
   * late answer must still be taken); a server error becomes an EchoMqError naming `op`, `queue` and
   * the key `prefix` (for ACL advice). `onLate` gets a reply that came after the caller gave up.
   * Public for the calls of one role kept in a file of their own (tenant-scripts.ts).
   */
  async run(op: string, queue: string, name: ScriptName, keys: string[], args: (string | number)[],
    { prefix = keys[0].slice(0, keys[0].indexOf(':{')), unbounded = false, onLate }: RunOptions = {}): Promise<Reply> {
    try {
      return await withinCallTimeout(this.runner.exec(name, keys, args), unbounded ? null : this.callTimeoutMs, op, queue, { onLate });
    } catch (err) {
      throw fromServerError(op, queue, prefix, err);
    }
  }

  /**
   * These scripts as a change of the shard count runs them (see LaneSharding): a call of a script that
   * writes a lane's or a tenant's setting or binding names the fence the change wrote in the call's
   * shard (`fences`: shard base -> fence), and rejects UNAVAILABLE, writing nothing, where the shard
   * holds another (a later change's: see lua/includes/changeFence.lua). Other calls go as they are.
   */
  fencedBy(fences: ReadonlyMap<string, string>): LaneScripts {
    const fenced = Object.create(this) as LaneScripts;
    fenced.run = async (op, queue, name, keys, args, options) => {
      const base = CHANGE_FENCED.has(name) ? [...fences.keys()].find((b) => keys[0]?.startsWith(b)) : undefined;
      if (base === undefined) return this.run(op, queue, name, keys, args, options);
      try {
        return await this.run(op, queue, name, [...keys, base + 'shardgen'], [...args, fences.get(base) as string], options);
      } catch (err) {
        if (err instanceof Error && err.message.includes('echomq: fenced')) {
          throw new EchoMqError(shardsChanging(queue), { code: 'UNAVAILABLE', queue });
        }
        throw err;
      }
    };
    return fenced;
  }

  /**
   * Hands back the jobs a claim served after its caller had given up on it (callTimeoutMs): nobody
   * runs them, and without this they would wait for their leases to end.
   */
  private handBackLate(k: LaneKeys, from: number): (reply: Reply) => void {
    return (reply) => {
      const r = reply as Reply[];
      for (let at = from; at + 5 < r.length; at += 6) {
        void this.release(k, r[at] as string, Number(r[at + 2])).catch(() => undefined);
      }
    };
  }

  /**
   * Admits one job; `sharded`: `k` is a shard of a sharded queue, asked whether the lane lives there
   * (see lua/submit ARGV[12]); `gen`: the gen of the shard map it was routed by ('' while unsharded).
   */
  async submit(k: LaneKeys, job: AdmitArgs, sharded = false, gen = ''): Promise<AdmitReply<AdmitResult>> {
    const args: (string | number)[] = [k.base, job.id, job.group, job.payload, job.dedupKey, job.delayMs, job.maxAttempts, job.own ? '1' : '0'];
    const routed = gen !== '';
    if (routed || sharded || job.tc !== undefined || job.tenant !== undefined || job.cost !== undefined) args.push(job.tc ?? '');
    if (routed || sharded || job.tenant !== undefined || job.cost !== undefined) args.push(job.tenant ?? '');
    if (routed || sharded || job.cost !== undefined) args.push(job.cost ?? '');
    if (routed || sharded) args.push(sharded ? (job.byBinding ? '2' : '1') : '');
    if (routed) args.push(gen);
    // NOTE: the script derives the lane's and the queue's keys from the base (see lua/submit): each key passed costs a call.
    const reply = (await this.run('submit', k.queue, 'submit', [k.job(job.id)], args)) as string[];
    if (reply[0] === 'tenant') return { refused: { item: 0, current: reply[1] } };
    if (reply[0] === 'full') return { full: { item: 0, n: Number(reply[1]) } };
    if (reply[0] === 'moved') return { moved: new Map([[job.group, reply[1]]]) };
    if (reply[0] === 'stale') return { stale: true };
    return { status: reply[0] as AdmitResult['status'], id: reply[1] };
  }

  /**
   * Admits a chunk; `checkOnly`: only checks the tenants it names and reads the room of its lanes
   * that have a maxDepth (nothing written; [] when no lane has one), see {@link laneRooms}.
   * `later`: the lanes that later chunks of the call name tenants for, checked before this one writes.
   * `sharded`: `k` is a shard of a sharded queue, asked whether the lanes live there, and `gen` the gen
   * of the shard map the call was routed by (see {@link submit}).
   */
  async submitMany(k: LaneKeys, jobs: AdmitArgs[], checkOnly = false, later: LaterTenant[] = [], sharded = false, gen = ''): Promise<AdmitReply<AdmitResult[] | LaneRoom[]>> {
    const { values: laterValues, order: laterOrder } = laterBlocks(later);
    const count = (checkOnly ? '?' : '') + (later.length > 0 ? `${jobs.length}+${laterValues.length}` : `${jobs.length}`) + (sharded ? 'b' : '')
      + (gen !== '' ? `:${gen}` : '');
    const args: (string | number)[] = [k.base, count];
    // NOTE: an 8th value per job (its trace context) only when some job of the chunk has one, and
    // a 9th (its tenant) only when some job names one, a 10th (its cost) only when some job has one.
    const costly = jobs.some((j) => j.cost !== undefined);
    const tenanted = costly || jobs.some((j) => j.tenant !== undefined);
    const traced = tenanted || jobs.some((j) => j.tc !== undefined);
    // NOTE: 3 values per job (id, group, payload), or 4 with its tenant, when every job of the chunk
    // has the defaults of the other four: each value passed costs the script about 1,000 server instructions.
    const plain = !costly && !jobs.some((j) => j.tc !== undefined)
      && jobs.every((j) => j.dedupKey === '' && j.delayMs === 0 && j.maxAttempts === 0 && !j.own);
    for (const j of jobs) {
      if (plain && tenanted) {
        args.push(j.id, j.group, j.payload, tenantValue(j));
        continue;
      }
      if (plain) {
        args.push(j.id, j.group, j.payload);
        continue;
      }
      args.push(j.id, j.group, j.payload, j.dedupKey, j.delayMs, j.maxAttempts, j.own ? '1' : '0');
      if (traced) args.push(j.tc ?? '');
      if (tenanted) args.push(tenantValue(j));
      if (costly) args.push(j.cost ?? '');
    }
    for (const v of laterValues) args.push(v);
    const reply = (await this.run('submitMany', k.queue, 'submitMany',
      [k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.schedule, k.wake, k.dedup, k.index, k.stats], args)) as (string | number)[];
    if (reply[0] === 'tenant') return { refused: { item: Number(reply[1]) - 1, current: String(reply[2]) } };
    if (reply[0] === 'later') {
      // NOTE: the script names every refused lane of `later` (in blocks, not in call order): the first in the call is refused.
      let first: TenantRefusal | undefined;
      for (let i = 1; i + 1 < reply.length; i += 2) {
        const item = laterOrder[Number(reply[i]) - 1].first;
        if (first === undefined || item < first.item) first = { item, current: String(reply[i + 1]) };
      }
      return { refused: first as TenantRefusal };
    }
    if (reply[0] === 'full') return { full: { item: Number(reply[1]) - 1, n: Number(reply[2]) } };
    if (reply[0] === 'moved') {
      const moved = new Map<string, string>();
      for (let i = 1; i + 1 < reply.length; i += 2) moved.set(String(reply[i]), String(reply[i + 1]));
      return { moved };
    }
    if (reply[0] === 'stale') return { stale: true };
    if (reply[0] === 'room') {
      const rooms: LaneRoom[] = [];
      for (let i = 1; i + 3 < reply.length; i += 4) {
        rooms.push({ group: String(reply[i]), room: Number(reply[i + 1]), fresh: Number(reply[i + 2]), n: Number(reply[i + 3]) });
      }
      return rooms;
    }
    // NOTE: the reply names only the jobs not admitted under their own id ('done', item, status, id, ...).
    const out: AdmitResult[] = jobs.map((j) => ({ status: 'ok', id: j.id }));
    for (let i = 1; i + 2 < reply.length; i += 3) out[Number(reply[i]) - 1] = { status: reply[i + 1] as AdmitResult['status'], id: String(reply[i + 2]) };
    return out;
  }

  /**
   * Serves up to `steps` single claims in one round trip; `dueInMs` (server clock) is -1 when nothing
   * is scheduled; `buried` counts the jobs served but dead-lettered (see served).
   */
  async claim(k: LaneKeys, leaseMs: number, steps: number, promoteMax: number, ringSize = false): Promise<Served> {
    // NOTE: the script derives its other keys from the base (see lua/claim): each key passed costs a call.
    // NOTE: a one-job claim leaves out steps and promoteMax when they are 1 and PROMOTE_PER_CLAIM
    // (the script's defaults): each value passed costs the script a Lua string.
    const args: (string | number)[] = steps === 1 && promoteMax === PROMOTE_PER_CLAIM && !ringSize ? [k.base, leaseMs] : [k.base, leaseMs, steps, promoteMax];
    if (ringSize) args.push('1');
    const reply = (await this.run('claim', k.queue, 'claim', [k.ring], args, { onLate: this.handBackLate(k, 2) })) as Reply[];
    // NOTE: the size follows the jobs, six values each; a paused queue's reply has none.
    const size = ringSize && (reply.length - 2) % 6 === 1 ? Number(reply.pop()) : -1;
    const served = await this.served(k, reply);
    if (ringSize) served.ringSize = size;
    return served;
  }

  async wclaim(k: LaneKeys, leaseMs: number, max: number, promoteMax: number): Promise<Served> {
    const reply = (await this.run('wclaim', k.queue, 'wclaim', [k.ring],
      [k.base, leaseMs, max, promoteMax], { onLate: this.handBackLate(k, 2) })) as Reply[];
    return this.served(k, reply);
  }

  /**
   * Maps a claim's reply. A job whose payload does not parse (a row another writer made) is never
   * handed out: the jobs of the reply that do are returned, and those are dead-lettered with one
   * more script call, fenced by their tokens (only then: a clean reply costs nothing more).
   */
  private async served(k: LaneKeys, reply: Reply[]): Promise<Served> {
    const { jobs, bad, dueInMs } = toClaim(k.queue, reply);
    if (bad.length > 0) await this.bury(k, bad, NOT_JSON_REASON);
    return { jobs, dueInMs, buried: bad.length };
  }

  /** Dead-letters leased jobs with `reason`, each fenced by its token; how many were. */
  async bury(k: LaneKeys, jobs: { id: string; token: number }[], reason: string): Promise<number> {
    const args: (string | number)[] = [k.base, reason, jobs.length];
    for (const j of jobs) args.push(j.id, j.token);
    return Number(await this.run('bury', k.queue, 'buryJobs',
      [k.active, k.gactive, k.limit, k.paused, k.ring, k.ringSet, k.dead, k.wake, k.stats, k.index, k.weight, k.rate], args));
  }

  /** Binds, moves or unbinds lanes in their home shard `k` (see lua/bindLanes and {@link BindArgs}). */
  async bindLanes(k: LaneKeys, lanes: BindArgs[]): Promise<BindReply> {
    const args: (string | number)[] = [k.base];
    for (const l of lanes) args.push(l.group, l.tenant, l.away ? '1' : '0', l.from ?? '', l.expect ?? '');
    const reply = (await this.run('submit', k.queue, 'bindLanes', [k.bound], args)) as (string | number)[];
    if (reply[0] === 'tenant') return { refused: { item: Number(reply[1]) - 1, current: String(reply[2]) } };
    if (reply[0] === 'settings') return { settings: Number(reply[1]) - 1 };
    if (reply[0] === 'changed') return { changed: Number(reply[1]) - 1 };
    return { ok: true };
  }

  /**
   * What binding `lanes` to their tenants in their home shard `k` would meet, writing nothing (see
   * lua/bindLanes ARGV[2] '?'): per lane, 'ok', 'move' (bound to `current`, another tenant) or
   * 'refused' (bound to none and holding jobs here), its binding ('' none) and its tenant here ('' none).
   */
  async bindCheck(k: LaneKeys, lanes: BindArgs[]): Promise<{ verdict: 'ok' | 'move' | 'refused'; current: string; own: string }[]> {
    const args: (string | number)[] = [k.base, '?'];
    for (const l of lanes) args.push(l.group, l.tenant, l.away ? '1' : '0', '', '');
    const reply = (await this.run('submit', k.queue, 'bindLanes', [k.bound], args)) as string[];
    return lanes.map((_, i) => ({ verdict: reply[1 + 3 * i] as 'ok' | 'move' | 'refused', current: reply[2 + 3 * i], own: reply[3 + 3 * i] }));
  }

  /** Whether lane `group` holds a job in shard `k`, and its tenant there ('' none), writing nothing (lua/moveLane 'check'). */
  async laneHere(k: LaneKeys, group: string): Promise<{ held: boolean; tenant: string }> {
    const reply = (await this.run('submit', k.queue, 'moveLane', [k.unbound], [k.base, group, '', 'check'])) as string[];
    return { held: reply[1] === '1', tenant: reply[2] };
  }

  /**
   * One shard's half of a lane's move between tenants (see lua/moveLane): 'out' in the shard of the
   * tenant it leaves (false, nothing written, while it holds jobs there), 'in' in the shard of the one it joins;
   * 'release' as 'out', for a lane that let its tenant go (false also while it is under a tenant there).
   */
  async moveLane(k: LaneKeys, group: string, tenant: string, mode: 'out' | 'in' | 'join' | 'release'): Promise<boolean> {
    const reply = (await this.run('submit', k.queue, 'moveLane', [k.unbound], [k.base, group, tenant, mode])) as string[];
    return reply[0] === 'ok';
  }

  /**
   * Checks that shard `k` holds no job ('check'), or fences it for a new shard map if it holds no job
   * ('fence', `fence` the map's gen, '-' and it for a shard the map drops): whether the shard was
   * empty (nothing written when not), the count stored before, and the fence a 'fence' replaced
   * (null: none). See lua/setShards, as for the calls below.
   */
  async setShards(k: LaneKeys, n: number, mode: 'check' | 'fence', fence = ''): Promise<{ empty: boolean; before: number; fence: string | null }> {
    const [empty, before, was, had] = (await this.shardCall(k, n, mode, '', fence)) as [number, number, string?, number?];
    return { empty: Number(empty) === 1, before: Number(before), fence: Number(had) === 1 ? String(was) : null };
  }

  /**
   * On shard 0, checks that it holds no job and stores the queue's shard map (`n`, its shards' `tags`,
   * the map's `gen`) while the change lock is still `token`'s: `stored` false when the shard holds
   * a job, `lockLost` when the lock is another's or gone (nothing written either way).
   */
  async storeShardMap(k: LaneKeys, n: number, tags: string[] | null, gen: string, token: string): Promise<{ stored: boolean; lockLost: boolean }> {
    const [ok] = (await this.shardCall(k, n, 'set', tags ? JSON.stringify(tags) : '', gen, token)) as [number];
    return { stored: Number(ok) === 1, lockLost: Number(ok) === -1 };
  }

  /**
   * Puts shard `k`'s fence back to `fence` (null: none), only while the shard still holds `expect`
   * ('' none; undefined: whatever it holds). Whether it did.
   */
  async restoreFence(k: LaneKeys, n: number, fence: string | null, expect?: string): Promise<boolean> {
    const [ok] = (await this.shardCall(k, n, 'restore', '', fence ?? '', fence !== null ? '1' : '', ...(expect === undefined ? [] : [expect]))) as [number];
    return Number(ok) === 1;
  }

  /**
   * The queue's change lock (on shard 0's keys), for `token`: 'take' it unless another holds it,
   * 'renew' it only while it is still `token`'s, 'release' it if it is. Whether the lock is `token`'s
   * ('take', 'renew').
   */
  async changeLock(k: LaneKeys, n: number, token: string, act: 'take' | 'renew' | 'release'): Promise<boolean> {
    const [ok] = (await this.shardCall(k, n, act === 'release' ? 'unlock' : 'lock', '', token, act === 'renew' ? '1' : '')) as [number];
    return Number(ok) === 1;
  }

  private shardCall(k: LaneKeys, n: number, mode: string, tags: string, ...rest: string[]): Promise<Reply> {
    return this.run('shards', k.queue, 'setShards', [k.shards], [k.base, n, mode, tags, ...rest]);
  }

  /**
   * A change of the shard count's copy of the queue's fairness (`fair`, '' for jobs) and pause into
   * shard `k`'s meta (see lua/setShards), only while the shard still holds the fence the change wrote
   * there (`fence`). False when the fence has changed since (nothing written).
   */
  async shardMeta(k: LaneKeys, n: number, fence: string, fair: string, paused: boolean): Promise<boolean> {
    const [ok] = (await this.shardCall(k, n, 'meta', '', fence, fair, paused ? '1' : '')) as [number];
    return Number(ok) === 1;
  }

  /**
   * A change of the shard count's edit of shard `k`'s lane bindings (see lib/shards/bindings-move.ts),
   * only while the shard still holds `fence`: `bind` lanes bound to tenants, `unbind` lanes unbound,
   * `ungone` lanes whose records of leaving a tenant go. False when the fence has changed (nothing written).
   */
  async shardBindings(k: LaneKeys, n: number, fence: string, bind: [string, string][], unbind: string[], ungone: string[]): Promise<boolean> {
    const [ok] = (await this.shardCall(k, n, 'bindings', '', fence, String(bind.length), ...bind.flat(), String(unbind.length), ...unbind,
      String(ungone.length), ...ungone)) as [number];
    return Number(ok) === 1;
  }

  /**
   * A dropped shard's totals handed to shard 0 (see lua/foldTotals): 'take' them from shard `k` (they
   * are deleted there), then 'add' them to shard 0's.
   */
  async foldTotals(k: LaneKeys, mode: 'take' | 'add', totals: number[] = []): Promise<number[]> {
    return ((await this.run('shards', k.queue, 'foldTotals', [k.stats], [k.base, mode, ...totals])) as number[]).map(Number);
  }

  /** The entries of a queue's (or a shard's) ring: its list and its virtual-time set (one of them is empty). */
  async ringSize(k: LaneKeys): Promise<number> {
    const [list, vt] = await withinCallTimeout(Promise.all([this.client.llen(k.ring), this.client.zcard(k.ring + ':vt')]),
      this.callTimeoutMs, 'ring', k.queue);
    return Number(list) + Number(vt);
  }

  /** Shard `k`'s present completion rate: its current busy spell's completions and the ms they took (see lua/shardRate). */
  async shardRate(k: LaneKeys): Promise<{ count: number; spanMs: number }> {
    const r = (await this.run('position', k.queue, 'shardRate', [k.stats], [])) as number[];
    return { count: Number(r[0]), spanMs: Number(r[1]) };
  }

  /** Pauses the whole queue (meta field `paused`); true when it was not paused. */
  async pauseQueue(k: LaneKeys): Promise<boolean> {
    return (await this.run('pauseQueue', k.queue, 'pauseQueue', [k.meta], [])) === 1;
  }

  /** Lifts the queue-wide pause and wakes a consumer; true when it was paused. */
  async resumeQueue(k: LaneKeys): Promise<boolean> {
    return (await this.run('resumeQueue', k.queue, 'resumeQueue', [k.meta, k.wake, k.ring], [])) === 1;
  }

  /**
   * Takes up to `turns` weighted turns in one round trip (see lua/wclaimMany-1.lua); the jobs of each
   * turn in order. A job whose payload is not JSON is left out of its turn and dead-lettered (see served).
   * `most`: the jobs the call may serve, below 1,000 when a caller splits its turns over calls.
   */
  async wclaimMany(k: LaneKeys, leaseMs: number, turns: number, max: number, untilJobs: number, promoteMax: number, ringSize = false,
    most = CLAIM_BATCH_MAX): Promise<{ turns: LaneJob[][]; dueInMs: number; buried: number; ringSize?: number }> {
    const args: (string | number)[] = [k.base, leaseMs, turns, max, untilJobs, promoteMax];
    // NOTE: `most` (the jobs this call may serve) only below the script's own 1,000.
    if (most < CLAIM_BATCH_MAX) args.push(ringSize ? '1' : '0', most);
    else if (ringSize) args.push('1');
    const reply = (await this.run('wclaimMany', k.queue, 'wclaimMany', [k.ring], args, { onLate: this.handBackLate(k, 3) })) as Reply[];
    const jobsEnd = 3 + 6 * (reply[2] as number[]).reduce((a, b) => a + Number(b), 0);
    const size = ringSize && reply.length > jobsEnd ? Number(reply.pop()) : -1;
    const leaseUntil = Number(reply[0]);
    const out: LaneJob[][] = [];
    const bad: { id: string; token: number }[] = [];
    let at = 3;
    for (const size of reply[2] as number[]) {
      const turn: LaneJob[] = [];
      for (let i = 0; i < Number(size); i++, at += 6) {
        const job = toJob(k.queue, reply, at, leaseUntil);
        if (job) turn.push(job);
        else bad.push({ id: reply[at] as string, token: Number(reply[at + 2]) });
      }
      out.push(turn);
    }
    if (bad.length > 0) await this.bury(k, bad, NOT_JSON_REASON);
    return ringSize ? { turns: out, dueInMs: Number(reply[1]), buried: bad.length, ringSize: size } : { turns: out, dueInMs: Number(reply[1]), buried: bad.length };
  }

  /** `result` is JSON text, '' for none; `keepMs` 0 deletes the row. */
  async complete(k: LaneKeys, id: string, token: number, result: string, keepMs: number): Promise<boolean> {
    // NOTE: the script derives the queue's keys from the base (see lua/complete): each key passed costs a call.
    // NOTE: keepMs and result only when given: each argument costs the call a Lua string.
    const args = keepMs > 0 || result !== '' ? [k.base, id, token, keepMs, result] : [k.base, id, token];
    const reply = await this.run('complete', k.queue, 'complete', [k.job(id)], args);
    return reply === 1;
  }

  /** One result per ack, in order: true when completed, false when the token was stale. */
  async completeMany(k: LaneKeys, acks: { id: string; token: number; result: string }[], keepMs: number): Promise<boolean[]> {
    const args: (string | number)[] = [k.base, acks.length, keepMs];
    // NOTE: 2 values per ack (no result) when none has a result: each value costs the script a Lua string.
    const results = acks.some((a) => a.result !== '');
    for (const a of acks) {
      if (results) args.push(a.id, a.token, a.result);
      else args.push(a.id, a.token);
    }
    // NOTE: the reply is the count completed, then the 1-based places of the acks that did nothing.
    const reply = (await this.run('completeMany', k.queue, 'completeMany', [k.ring], args)) as number[];
    const out = acks.map(() => true);
    for (let i = 1; i < reply.length; i++) out[Number(reply[i]) - 1] = false;
    return out;
  }

  /** `dead`: dead-letter the job now, whatever attempts it has left. */
  async fail(k: LaneKeys, id: string, token: number, error: string, p: FailPolicy, dead = false): Promise<'retry' | 'dead' | 'stale'> {
    const args: (string | number)[] = [k.base, id, token, error, p.maxAttempts, p.delayMs, p.factor, p.maxDelayMs];
    if (dead) args.push('1');
    // NOTE: the script derives the queue's keys from the base (see lua/fail): each key passed costs a call.
    return (await this.run('fail', k.queue, 'fail', [k.job(id)], args)) as 'retry' | 'dead' | 'stale';
  }

  /** The new lease deadline, or 0 when the job is no longer held under `token`. */
  async extend(k: LaneKeys, id: string, token: number, leaseMs: number): Promise<number> {
    return Number(await this.run('extend', k.queue, 'extend', [k.job(id), k.active], [id, token, leaseMs]));
  }

  /** One new lease deadline per job, in order; 0 where the job is no longer held under its token. */
  async extendMany(k: LaneKeys, leases: { id: string; token: number }[], leaseMs: number): Promise<number[]> {
    const args: (string | number)[] = [k.base, leaseMs, leases.length];
    for (const l of leases) args.push(l.id, l.token);
    return ((await this.run('extendMany', k.queue, 'extendMany', [k.active], args)) as number[]).map(Number);
  }

  /**
   * Takes, renews or releases a job-id node number held under `token` in `leasesKey` (see
   * lua/nodeLease-1.lua): `result` the number taken (-1 - n when all are held), or 1 / 0 for renew
   * and release; `serverMs` the server's clock when the script ran.
   */
  async nodeLease(leasesKey: string, action: 'take' | 'renew' | 'release', token: string, leaseMs: number, node = -1): Promise<{ result: number; serverMs: number }> {
    // NOTE: unbounded: a number taken late is still this process's (it mints with it once it lands).
    const [result, serverMs] = (await this.run(`the job-id node lease (${action})`, '', 'nodeLease', [leasesKey], [action, token, leaseMs, node],
      { prefix: leasesKey.slice(0, leasesKey.lastIndexOf(':')), unbounded: true })) as [number, number];
    return { result: Number(result), serverMs: Number(serverMs) };
  }

  /**
   * Indexes a page of the lanes a queue written before 0.2 has (see lua/adoptLanes-11.lua): `done`
   * when the queue is done, now or before; `indexed`, the lanes this call put in the lane index.
   */
  async adoptLanes(k: LaneKeys, count: number): Promise<{ done: boolean; indexed: number }> {
    const [done, indexed] = (await this.run('adopting the lanes of a queue written before 0.2', k.queue, 'adoptLanes',
      [k.meta, k.index, k.stats, k.ringSet, k.paused, k.gactive, k.limit, k.weight, k.active, k.schedule, k.dead],
      [k.base, count], { unbounded: true })) as [number, number];
    return { done: Number(done) === 1, indexed: Number(indexed) };
  }

  async reap(k: LaneKeys, maxAttempts: number, max: number): Promise<number> {
    return Number(await this.run('reap', k.queue, 'reap',
      [k.active, k.gactive, k.limit, k.paused, k.ring, k.ringSet, k.dead, k.wake, k.stats, k.index, k.weight, k.rate, k.flatPending],
      [k.base, maxAttempts, max]));
  }

  async promote(k: LaneKeys, max: number): Promise<{ moved: number; nextDue: number }> {
    const reply = (await this.run('promote', k.queue, 'promote',
      [k.schedule, k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.wake, k.dead, k.flatPending, k.index, k.stats], [k.base, max])) as number[];
    return { moved: Number(reply[0]), nextDue: Number(reply[1]) };
  }

  /** Sets (or with null removes) a lane's depth ceiling. */
  async maxDepth(k: LaneKeys, group: string, n: number | null): Promise<void> {
    await this.run('maxDepth', k.queue, 'maxDepth', [k.depth], [group, n ?? '']);
  }

  /** Whether some lane of the queue has a maxDepth (one EXISTS, no script). */
  async hasDepthCeilings(k: LaneKeys): Promise<boolean> {
    return (await withinCallTimeout(this.client.exists(k.depth), this.callTimeoutMs, 'submitMany', k.queue)) === 1;
  }

  async weight(k: LaneKeys, group: string, weight: number): Promise<void> {
    await this.run('weight', k.queue, 'weight', [k.weight, k.index, k.paused, k.limit, k.gactive, k.rate], [group, weight]);
  }

  async limit(k: LaneKeys, group: string, limit: number | null): Promise<void> {
    await this.run('limit', k.queue, 'limit',
      [k.limit, k.gactive, k.paused, k.ring, k.ringSet, k.wake, k.lane(group), k.timers, k.index, k.weight, k.rate], [k.base, group, limit ?? '']);
  }

  /** Makes a lane keep submit order, or a plain lane again (see lua/includes/orderedLane.lua). */
  async ordered(k: LaneKeys, group: string, on: boolean): Promise<void> {
    await this.run('ordered', k.queue, 'ordered',
      [k.limit, k.gactive, k.paused, k.ring, k.ringSet, k.wake, k.lane(group), k.index, k.weight, k.rate, k.ordered],
      [k.base, group, on ? '1' : '0']);
  }

  /** Sets (or with null clears) a lane's rate ceiling. */
  async rate(k: LaneKeys, group: string, rate: LaneRate | null): Promise<void> {
    await this.run('rate', k.queue, 'rate',
      [k.rate, k.timers, k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.wake, k.lane(group), k.rateLog(group), k.index, k.weight],
      [k.base, group, rate ? rate.max : '', rate ? rate.perMs : '']);
  }

  /** Pauses a lane, until resumed or, with `forMs`, for that long (server clock); `reason` '' for none. */
  async pause(k: LaneKeys, group: string, forMs: number | null, reason: string): Promise<void> {
    await this.run('pause', k.queue, 'pause',
      [k.paused, k.limit, k.gactive, k.ring, k.ringSet, k.wake, k.lane(group), k.pauseInfo, k.timers, k.index],
      [k.base, group, forMs ?? '', reason]);
  }

  async resume(k: LaneKeys, group: string): Promise<void> {
    await this.run('resume', k.queue, 'resume',
      [k.paused, k.limit, k.gactive, k.ring, k.ringSet, k.wake, k.lane(group), k.pauseInfo, k.timers, k.index, k.weight, k.rate], [k.base, group]);
  }

  async release(k: LaneKeys, id: string, token: number): Promise<boolean> {
    const reply = await this.run('release', k.queue, 'release',
      [k.job(id), k.active, k.gactive, k.limit, k.paused, k.ring, k.ringSet, k.wake, k.index], [k.base, id, token]);
    return reply === 1;
  }

  async retryDead(k: LaneKeys, id: string): Promise<boolean> {
    const reply = await this.run('retryDead', k.queue, 'retryDead',
      [k.job(id), k.dead, k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.wake, k.index], [k.base, id]);
    return reply === 1;
  }

  async lane(k: LaneKeys, group: string): Promise<LaneInfo> {
    const r = (await this.run('lane', k.queue, 'laneInfo', [...laneRowKeys(k), k.lane(group)], [k.base, group])) as unknown[];
    return toLaneInfo(r);
  }

  async lanes(k: LaneKeys, max: number): Promise<LaneInfo[]> {
    return toLaneInfos((await this.run('lanes', k.queue, 'lanes', laneRowKeys(k), [k.base, max])) as unknown[]);
  }

  /** The row of a job, null when the queue does not hold it. */
  async job(k: LaneKeys, id: string): Promise<JobRow | null> {
    return toJobRow(await this.run('job', k.queue, 'readJob', [k.job(id), k.active, k.schedule], [k.base, id]) as Reply[]);
  }

  /**
   * The row of a job, marking it as waited on when it is unfinished; null when the queue does not
   * hold it. `recheck` (a waiter's read once subscribed): a row gone since may come back as the
   * outcome its finish announced to nobody.
   */
  async watchJob(k: LaneKeys, id: string, recheck = false): Promise<JobRow | null> {
    const reply = await this.run('waitFor', k.queue, 'watchJob', [k.job(id), k.active, k.schedule], [k.base, id, recheck ? '1' : '0']);
    return typeof reply === 'string' ? announcedRow(reply) : toJobRow(reply as Reply[]);
  }

  /** Where a pending job stands, after the lane timers that are due (see locateJob-13.lua); null when it is not pending. */
  async locate(k: LaneKeys, id: string, exactUpTo: number): Promise<LocatedJob | null> {
    const r = (await this.run('position', k.queue, 'locateJob',
      [k.job(id), k.ring, k.ringSet, k.stats, k.timers, k.rate, k.pauseInfo, k.paused, k.limit, k.gactive, k.wake, k.index, k.weight],
      [k.base, id, exactUpTo])) as (number | string)[];
    if (r.length === 0) return null;
    return {
      laneRank: Number(r[0]), ringIndex: Number(r[1]) < 0 ? null : Number(r[1]), ringLength: Number(r[2]),
      ahead: Number(r[3]), exact: Number(r[4]) === 1, rateCount: Number(r[5]), rateSpanMs: Number(r[6]),
      tenant: r[7] ? String(r[7]) : null, tenantRingIndex: Number(r[8] ?? -1) < 0 ? null : Number(r[8]),
    };
  }

  /** The LaneInfo rows of the named lanes, in order. */
  async laneRows(k: LaneKeys, groups: string[]): Promise<LaneInfo[]> {
    if (groups.length === 0) return [];
    return toLaneInfos((await this.run('scanLanes', k.queue, 'laneRows', laneRowKeys(k), [k.base, ...groups])) as unknown[]);
  }

  /** The queue's counters and sizes, after the lane timers that are due (see readStats-16.lua). */
  async stats(k: LaneKeys): Promise<StatsRow> {
    const raw = (await this.run('stats', k.queue, 'readStats',
      [k.stats, k.schedule, k.active, k.dead, k.ring, k.paused, k.index, k.meta,
        k.timers, k.rate, k.pauseInfo, k.ringSet, k.limit, k.gactive, k.wake, k.weight], [k.base])) as (number | string)[];
    const by = String(raw[15] ?? 'jobs') as FairnessBy;
    const r = raw.slice(0, 15).map(Number);
    return {
      submitted: r[0], completed: r[1], retried: r[2], deadTotal: r[3], reaped: r[4], scheduled: r[5], active: r[6],
      dead: r[7], lanes: r[8], ringLength: r[9], pausedLanes: r[10], completedLastMinute: r[11],
      paused: r[12] === 1, cancelled: r[13],
      limit: r[14] < 0 ? null : r[14],
      fairness: by,
      oldestDone: Number(raw[16]) === 1,
      oldestLane: raw[17] ? String(raw[17]) : null,
      oldestReady: raw[17] ? Number(raw[18]) : null,
      now: Number(raw[19]),
      oldestAfter: [String(raw[20] ?? ''), String(raw[21] ?? '')],
    };
  }

  /** Removes a pending, scheduled or dead job (see cancelJob-15.lua); null when it was none of those. */
  async cancel(k: LaneKeys, id: string): Promise<{ group: string; state: string } | null> {
    const r = (await this.run('cancel', k.queue, 'cancelJob',
      [k.job(id), k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.schedule, k.dead, k.wake, k.dedup, k.index, k.stats,
        k.weight, k.rate, k.timers], [k.base, id])) as unknown[];
    return Number(r[0]) === 1 ? { group: String(r[1]), state: String(r[2]) } : null;
  }

  /** One page of a drain (see drainLanes-13.lua): how many it removed, and where the next page starts. */
  async drainPage(k: LaneKeys, group: string, phase: string, offset: number, budget: number): Promise<{ removed: number; phase: string; offset: number }> {
    const r = (await this.run('drain', k.queue, 'drainLanes',
      [k.ring, k.ringSet, k.paused, k.limit, k.gactive, k.schedule, k.wake, k.dedup, k.index, k.stats, k.weight, k.rate, k.timers],
      [k.base, group, phase, offset, budget])) as unknown[];
    return { removed: Number(r[0]), phase: String(r[1]), offset: Number(r[2]) };
  }

  /** One page of a clean (see cleanJobs-3.lua): how many jobs it removed. */
  async cleanPage(k: LaneKeys, kind: 'dead' | 'completed', olderThanMs: number, max: number, ids: string[] = []): Promise<number> {
    return Number(await this.run('clean', k.queue, 'cleanJobs', [k.dead, k.dedup, k.stats], [k.base, kind, olderThanMs, max, ...ids]));
  }

  /** One page of an obliterate (see obliterateQueue-2.lua): keys deleted, or -1 - active when refused. */
  async obliteratePage(k: LaneKeys, force: boolean, first: boolean, keys: string[]): Promise<number> {
    return Number(await this.run('obliterate', k.queue, 'obliterateQueue', [k.active, k.meta], [k.base, force ? '1' : '0', first ? '1' : '0', ...keys]));
  }

  /** Keeps a held job's progress (JSON text); its group when kept, null when the token is stale. */
  async progress(k: LaneKeys, id: string, token: number, value: string): Promise<string | null> {
    const r = (await this.run('progress', k.queue, 'reportProgress', [k.job(id)], [k.base, id, token, value])) as unknown[];
    return Number(r[0]) === 1 ? String(r[1]) : null;
  }

  /** Announces (ttlMs > 0) or withdraws (0) this process's listener of the queue's events. */
  async announceListener(k: LaneKeys, token: string, ttlMs: number): Promise<void> {
    await this.run('listening to the queue\'s events', k.queue, 'announceListener', [k.listeners], [token, ttlMs]);
  }

  async dead(k: LaneKeys, offset: number, count: number): Promise<LaneJob[]> {
    const r = (await this.run('dead', k.queue, 'deadList', [k.dead], [k.base, offset, count])) as Reply[];
    const out: LaneJob[] = [];
    for (let i = 0; i < r.length; i += 6) {
      const job = toJob(k.queue, r, i, 0);
      // NOTE: a dead job may be dead because its payload is not JSON: it is listed with the raw text.
      out.push(job ?? { ...jobFields(k.queue, r, i, 0), payload: r[i + 3] as string });
    }
    return out;
  }
}

/**
 * `later` as submitMany's script takes it (see lua/submitMany): a block per tenant (and per
 * `ahead`): the tenant, its lanes' count (negative when `ahead`), the lanes; one value a lane
 * rather than three, and the script asks each block's lanes of their tenant at once. `order`:
 * the lanes in the order given, which a refusal names (its place maps back to `first`).
 */
function laterBlocks(later: LaterTenant[]): { values: string[]; order: LaterTenant[] } {
  const blocks = new Map<string, LaterTenant[]>();
  for (const l of later) {
    const key = `${l.ahead ? '-' : '+'}${l.tenant}`;
    const block = blocks.get(key);
    if (block) block.push(l);
    else blocks.set(key, [l]);
  }
  const values: string[] = [];
  const order: LaterTenant[] = [];
  for (const block of blocks.values()) {
    values.push(block[0].tenant, String(block[0].ahead ? -block.length : block.length));
    for (const l of block) {
      values.push(l.group);
      order.push(l);
    }
  }
  return { values, order };
}

/**
 * A job's tenant as submitMany takes it: '' for none, and '{' before a tenant that is the lane's
 * binding rather than the submit's (see AdmitArgs.byBinding; a name never holds '{').
 */
function tenantValue(j: AdmitArgs): string {
  if (j.tenant === undefined) return '';
  return j.byBinding ? `{${j.tenant}` : j.tenant;
}
