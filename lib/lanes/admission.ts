import { LATER_PER_CALL, MAX_COST, SUBMIT_CHUNK } from '../echomq.constants';
import { idsExhausted, invalidArgument, laneFull, tenantsInCompat, tenantTaken } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { mintJobId } from '../ids/job-id';
import type { SubmitItem, SubmitOptions } from '../interfaces';
import type { AdmitArgs, AdmitReply, AdmitResult, DepthRefusal, LaneRoom, LaterTenant, TenantRefusal } from '../scripts/lane-scripts';
import { checkDedupKey, checkJobId, checkName, checkOptInt, checkOptions, encodePayload } from '../validation/validate';
import { captureTraceContext } from '../tracing/job-tracing';
import type { LaneKeys } from '../redis/lane-keys';
import { LanePlacement } from '../shards/lane-placement';
import type { LaneContext } from './lane-context';

const MAX_DELAY_MS = 10 * 365 * 24 * 3600 * 1000;
const MINT_RETRIES = 5;

/** @internal Admits work into lanes: submit and submitMany. */
export class LaneAdmission {
  private readonly placement: LanePlacement;

  constructor(private readonly ctx: LaneContext) {
    this.placement = new LanePlacement(ctx);
  }

  async submit(queue: string, group: unknown, payload: unknown, opts: unknown): Promise<string> {
    const k0 = this.ctx.keysOf(queue);
    const job = this.admitArgs(k0.queue, group, payload, opts);
    let n = await this.ctx.shards.count(k0);
    let staleSince: number | undefined;
    for (let minted = 0, moved = 0; ;) {
      if (n > 1) await this.placement.bind(k0, n, [job], '');
      // NOTE: the count and gen the submit goes by, as one (a read behind the calls may have changed them meanwhile).
      const map = this.ctx.shards.routedBy(k0);
      if (map.n !== n) {
        n = map.n;
        continue;
      }
      const [k, sent] = this.placement.route(k0, n, job);
      const reply = await this.ctx.scripts.submit(k, sent, n > 1, map.gen);
      if (isStale(reply)) {
        staleSince ??= Date.now();
        n = await this.ctx.shards.afterStale(k0, k.shard, map, staleSince);
        continue;
      }
      if (isMoved(reply)) {
        // NOTE: where the lane lives is learnt again; the next pass goes there.
        await this.placement.learn(k0, n, reply.moved, () => sent, moved++);
        continue;
      }
      const r = this.admitted(k.queue, [sent], '', reply);
      if (r.status !== 'collide') {
        if (n > 1) {
          this.ctx.shards.jobs.remember(k.queue, r.id, k.shard);
          this.ctx.shards.wrote(k0, k.shard, n);
        }
        return this.ctx.durability.confirm('submit', k.queue, r.id, true, k);
      }
      // NOTE: the id is another job's; returning it would drop this job while claiming success.
      if (minted++ >= MINT_RETRIES) throw new EchoMqError(idsExhausted(k.queue, MINT_RETRIES + 1), { code: 'IDS_EXHAUSTED', queue: k.queue });
      job.id = mintJobId();
    }
  }

  async submitMany(queue: string, items: unknown): Promise<string[]> {
    const k = this.ctx.keysOf(queue);
    if (!Array.isArray(items)) {
      throw new EchoMqError(invalidArgument('items', 'must be an array of { group, payload, opts? }', items), { argument: 'items', queue: k.queue });
    }
    const jobs = items.map((item: SubmitItem, i) => {
      if (typeof item !== 'object' || item === null) {
        throw new EchoMqError(invalidArgument(`items[${i}]`, 'must be { group, payload, opts? }', item), { argument: `items[${i}]`, queue: k.queue });
      }
      return this.admitArgs(k.queue, item.group, item.payload, item.opts, `items[${i}].`);
    });
    // NOTE: a lane's tenant is checked by the script of each chunk; two chunks naming two tenants
    // for one lane would pass them one at a time, so the call refuses that here, before a write.
    const named = new Map<string, string>();
    jobs.forEach((job, i) => {
      if (job.tenant === undefined) return;
      const other = named.get(job.group);
      if (other !== undefined && other !== job.tenant) {
        throw new EchoMqError(tenantTaken(`items[${i}].opts.tenant`, job.group, job.tenant, other), { argument: `items[${i}].opts.tenant`, queue: k.queue });
      }
      named.set(job.group, job.tenant);
    });
    let n = await this.ctx.shards.count(k);
    // NOTE: each shard's items go in one call of their own, all at once (one call, the queue's own
    // keys, while it is unsharded). A shard that says some lanes live elsewhere (see LanePlacement)
    // has admitted none of its items from that chunk on: those go again, now where their lanes
    // live. So do those of a shard fenced for another map, by the map read again.
    const ids = new Array<string>(jobs.length);
    const wrote: LaneKeys[] = [];
    let left = jobs.map((_, i) => i);
    let staleSince: number | undefined;
    let moved = 0;
    /**
     * Takes in what shards answered instead of admitting, to a check or to a write alike: lanes that
     * live elsewhere are learnt, and a fence for another map has the map read again (n). True when
     * any did: the items go again.
     */
    const takeIn = async (answers: { part: { keys: LaneKeys; jobs: AdmitArgs[] }; got: { moved?: Map<string, string>; stale?: true } }[],
      map: { n: number; gen: string }): Promise<boolean> => {
      const movedNow = answers.filter((a) => a.got.moved);
      await Promise.all(movedNow.map((a) => this.placement.learn(k, n, a.got.moved!, sentOf(a.part.jobs), moved)));
      if (movedNow.length > 0) moved++;
      const staleNow = answers.find((a) => a.got.stale);
      if (staleNow) {
        staleSince ??= Date.now();
        n = await this.ctx.shards.afterStale(k, staleNow.part.keys.shard, map, staleSince);
      }
      return movedNow.length > 0 || staleNow !== undefined;
    };
    while (left.length > 0) {
      if (n > 1) {
        await this.placement.check(k, n, jobs, 'items', left);
        await this.placement.bind(k, n, jobs, 'items', left);
      }
      const map = this.ctx.shards.routedBy(k);
      if (map.n !== n) {
        n = map.n;
        continue;
      }
      const parts = new Map<number, { keys: LaneKeys; jobs: AdmitArgs[]; places: number[] }>();
      for (const i of left) {
        const [s, sent] = this.placement.route(k, n, jobs[i]);
        let part = parts.get(s.shard);
        if (part === undefined) parts.set(s.shard, part = { keys: s, jobs: [], places: [] });
        part.jobs.push(sent);
        part.places.push(i);
      }
      // NOTE: a call over more than one shard that names tenants, or meets a lane with a maxDepth,
      // has every shard check it before any writes: a refusal by one shard's script would otherwise
      // leave what the others admitted.
      const all = [...parts.values()];
      let checked = false;
      if (all.length > 1 && (left.some((i) => jobs[i].tenant !== undefined)
          || (await Promise.all(all.map((part) => this.ctx.scripts.hasDepthCeilings(part.keys)))).some(Boolean))) {
        const checks = await Promise.all(all.map(async (part) => ({ part, got: await this.checkIn(part.keys, part.jobs, part.places, true, map.gen, true) })));
        if (await takeIn(checks, map)) continue;
        const refused = checks.filter((c) => c.got.refused).map((c) => c.got.refused!);
        if (refused.length > 0) throw refused.reduce((a, b) => (b.at < a.at ? b : a)).error;
        checked = true;
      }
      const again: number[] = [];
      const writes = await Promise.all(all.map(async (part) => {
        wrote.push(part.keys);
        const got = await this.submitIn(part.keys, part.jobs, part.places, n > 1, map.gen, checked);
        got.ids.forEach((id, j) => {
          if (id === undefined) return;
          ids[part.places[j]] = id;
          if (n > 1) this.ctx.shards.jobs.remember(k.queue, id, part.keys.shard);
        });
        if (n > 1 && got.ids.some((id) => id !== undefined)) this.ctx.shards.wrote(k, part.keys.shard, n);
        if (got.moved || got.stale) again.push(...got.rest.map((j) => part.places[j]));
        return { part, got };
      }));
      await takeIn(writes, map);
      left = again.sort((a, b) => a - b);
    }
    return this.ctx.durability.confirm('submitMany', k.queue, ids, true, wrote);
  }

  /**
   * Checks `jobs` in shard `k` as {@link submitIn} would admit them, writing nothing: the tenants
   * that its later chunks name (against the first chunk, see laterTenants), and with `chunks` every
   * chunk (its tenants, and each lane's new jobs added up against its maxDepth's room). Says that
   * some lanes live elsewhere, or that the shard is fenced for another map, or gives the refusal of
   * the first refused item (`at`: its place among the caller's items; `places` as in submitIn).
   * The calls write nothing, so they go at once (one round trip).
   */
  private async checkIn(k: LaneKeys, jobs: AdmitArgs[], places: number[], sharded: boolean, gen: string, chunks: boolean):
    Promise<{ moved?: Map<string, string>; stale?: true; refused?: { at: number; error: unknown } }> {
    const later = jobs.length > SUBMIT_CHUNK && jobs.some((j) => j.tenant !== undefined) ? laterTenants(jobs) : [];
    const calls = [
      ...pagesOf(later, LATER_PER_CALL).map((page) => ({ chunk: [] as AdmitArgs[], later: page, start: 0 })),
      ...(chunks ? pagesOf(jobs, SUBMIT_CHUNK) : []).map((chunk, c) => ({ chunk, later: [] as LaterTenant[], start: c * SUBMIT_CHUNK })),
    ];
    const replies = await Promise.all(calls.map((c) => this.ctx.scripts.submitMany(k, c.chunk, true, c.later, sharded, gen)));
    for (const reply of replies) {
      if (isMoved(reply)) return { moved: reply.moved };
      if (isStale(reply)) return { stale: true };
    }
    let refused: { at: number; error: unknown } | undefined;
    const refuse = (at: number, error: unknown) => {
      if (refused === undefined || at < refused.at) refused = { at, error };
    };
    const lanes = new Map<string, LaneRoom & { first: number }>();
    replies.forEach((reply, i) => {
      const c = calls[i];
      const place = c.later.length > 0 ? (j: number) => places[j] : (j: number) => places[c.start + j];
      let at = -1;
      try {
        const rooms = this.admitted(k.queue, c.later.length > 0 ? jobs : c.chunk, 'items', reply, (j) => (at = place(j)));
        if (c.later.length > 0 || !Array.isArray(rooms)) return;
        // NOTE: a shard without any maxDepth answers a check with no rooms.
        for (const r of (rooms as (LaneRoom | AdmitResult)[]).filter((x): x is LaneRoom => 'room' in x)) {
          const seen = lanes.get(r.group);
          if (seen) seen.fresh += r.fresh;
          else lanes.set(r.group, { ...r, first: c.start + c.chunk.findIndex((j) => j.group === r.group) });
        }
      } catch (error) {
        refuse(at, error);
      }
    });
    for (const r of lanes.values()) {
      if (r.fresh <= r.room) continue;
      try {
        this.refuseFull(k.queue, jobs[r.first].group, `items[${places[r.first]}].group`, r.n);
      } catch (error) {
        refuse(places[r.first], error);
      }
    }
    return refused ? { refused } : {};
  }

  /**
   * Admits `jobs` into one shard `k`, in chunks; `places[i]` is job i's place in the caller's items
   * (what a refusal names); `sharded`: `k` is a shard of a sharded queue, asked whether the lanes
   * live there (see LanePlacement); `gen`: the gen of the shard map the call was routed by. Returns
   * the ids in the order of `jobs`; when the shard says some lanes live elsewhere (`moved`), or that
   * it is fenced for another map (`stale`), `rest` are the jobs (places in `jobs`) it admitted none of.
   */
  private async submitIn(k: LaneKeys, jobs: AdmitArgs[], places: number[], sharded: boolean, gen: string, checked = false):
    Promise<{ ids: string[]; moved?: Map<string, string>; stale?: true; rest: number[] }> {
    // NOTE: a call of many chunks checks every chunk before it writes one, so one refused item
    // refuses the whole call (a writer between the checks and the writes can still make a later
    // chunk refuse). Where a lane has a maxDepth, a first pass over every chunk adds up each such
    // lane's new jobs against its room (and checks the tenants on the way); the first chunk checks
    // the tenants that the later ones name (laterTenants: a few values per lane, not a second pass
    // over every item), or, past LATER_PER_CALL lanes, calls of their own ahead of it (checkIn).
    // `checked`: the caller has had checkIn do all that.
    const ids = new Array<string>(jobs.length);
    const ceilings = !checked && jobs.length > SUBMIT_CHUNK && (await this.ctx.scripts.hasDepthCeilings(k));
    // NOTE: after checkIn the first chunk does not check the later chunks' tenants again.
    let later = !checked && jobs.length > SUBMIT_CHUNK && jobs.some((j) => j.tenant !== undefined) ? laterTenants(jobs) : [];
    if (!checked && (ceilings || later.length > LATER_PER_CALL)) {
      const got = await this.checkIn(k, jobs, places, sharded, gen, ceilings);
      if (got.moved) return { ids, moved: got.moved, rest: jobs.map((_, i) => i) };
      if (got.stale) return { ids, stale: true, rest: jobs.map((_, i) => i) };
      if (got.refused) throw got.refused.error;
      later = [];
    }
    if (later.length > LATER_PER_CALL) later = [];
    for (let start = 0; start < jobs.length; start += SUBMIT_CHUNK) {
      let batch = jobs.slice(start, start + SUBMIT_CHUNK).map((job, j) => ({ job, at: start + j }));
      for (let attempt = 0; batch.length > 0; attempt++) {
        const chunk = batch.map((b) => b.job);
        const check = start === 0 && attempt === 0 ? later : [];
        // NOTE: a refusal of a later chunk's lane names its item by its place in the call (the first chunk's offset is 0).
        const reply = await this.ctx.scripts.submitMany(k, chunk, false, check, sharded, gen);
        if (isMoved(reply) || isStale(reply)) {
          const rest = [...batch.map((b) => b.at), ...jobs.slice(start + SUBMIT_CHUNK).map((_, j) => start + SUBMIT_CHUNK + j)];
          return isMoved(reply) ? { ids, moved: reply.moved, rest } : { ids, stale: true, rest };
        }
        const results = this.admitted(k.queue, check.length > 0 ? jobs : chunk, 'items', reply,
          check.length > 0 ? (i) => places[i] : (i) => places[batch[i].at]) as AdmitResult[];
        const again: typeof batch = [];
        results.forEach((r, j) => {
          if (r.status === 'collide') {
            if (attempt >= MINT_RETRIES) throw new EchoMqError(idsExhausted(k.queue, MINT_RETRIES + 1), { code: 'IDS_EXHAUSTED', queue: k.queue });
            batch[j].job.id = mintJobId();
            again.push(batch[j]);
          } else {
            ids[batch[j].at] = r.id;
          }
        });
        batch = again;
      }
    }
    return { ids, rest: [] };
  }

  /**
   * A script's results, or the EchoMqError of a tenant or a full lane it refused (`list` names
   * submitMany's items; `place` maps an item of `jobs` to its place among the caller's items).
   */
  private admitted<T>(queue: string, jobs: AdmitArgs[], list: string, reply: AdmitReply<T>, place: (i: number) => number = (i) => i): T {
    if (typeof reply === 'object' && reply !== null && 'full' in reply) {
      const { item, n } = (reply as { full: DepthRefusal }).full;
      this.refuseFull(queue, jobs[item].group, list === '' ? 'group' : `${list}[${place(item)}].group`, n);
    }
    if (typeof reply !== 'object' || reply === null || !('refused' in reply)) return reply as T;
    const { item, current } = (reply as { refused: TenantRefusal }).refused;
    const argument = list === '' ? 'opts.tenant' : `${list}[${place(item)}].opts.tenant`;
    const job = jobs[item];
    throw new EchoMqError(tenantTaken(argument, job.group, job.tenant ?? '', current), { argument, queue });
  }

  /** The refusal of a submit into a lane that holds its maxDepth `n`. */
  private refuseFull(queue: string, group: string, argument: string, n: number): never {
    throw new EchoMqError(laneFull(argument, group, n), { code: 'LANE_FULL', argument, queue, group });
  }

  /** Checks one job's arguments (names prefixed with `argPrefix` inside submitMany) and mints its id. */
  private admitArgs(queue: string, group: unknown, payload: unknown, rawOpts: unknown, argPrefix = ''): AdmitArgs {
    const g = checkName(argPrefix + 'group', group, queue);
    const opts = checkOptions<SubmitOptions>(argPrefix + 'opts', rawOpts, queue);
    const own = opts.jobId !== undefined;
    const id = own ? checkJobId(argPrefix + 'opts.jobId', opts.jobId, queue) : mintJobId();
    const dedupKey = opts.dedupKey === undefined ? '' : checkDedupKey(opts.dedupKey, queue, argPrefix + 'opts.dedupKey');
    const delayMs = checkOptInt(argPrefix + 'opts.delayMs', opts.delayMs, 0, MAX_DELAY_MS, queue) ?? 0;
    const maxAttempts = checkOptInt(argPrefix + 'opts.maxAttempts', opts.maxAttempts, 1, 1_000_000, queue) ?? 0;
    const json = encodePayload(payload, this.ctx.options.maxPayloadBytes, queue, argPrefix + 'payload');
    const args: AdmitArgs = { id, group: g, payload: json, dedupKey, delayMs, maxAttempts, own };
    const cost = checkOptInt(argPrefix + 'opts.cost', opts.cost, 1, MAX_COST, queue);
    if (cost !== undefined && cost !== 1) args.cost = cost;
    if (opts.tenant !== undefined) {
      // NOTE: the reference has no tenants, and its scripts would serve the lane off the ring.
      if (this.ctx.options.compat === 'echomq') {
        throw new EchoMqError(tenantsInCompat(argPrefix === '' ? 'submit' : 'submitMany'), { code: 'MISCONFIGURED', argument: argPrefix + 'opts.tenant', queue });
      }
      args.tenant = checkName(argPrefix + 'opts.tenant', opts.tenant, queue);
    }
    const tc = captureTraceContext();
    // NOTE: the trace context rides in the row with the payload, within the payload limit: when
    // both would not fit, the job goes untraced rather than refused.
    if (tc !== undefined && Buffer.byteLength(json) + tc.length <= this.ctx.options.maxPayloadBytes) args.tc = tc;
    return args;
  }
}

/**
 * The job a shard's answer about a lane speaks of, among the `jobs` sent there: one naming the lane's
 * tenant before one sent by its binding.
 */
function sentOf(jobs: AdmitArgs[]): (group: string) => AdmitArgs | undefined {
  return (group) => jobs.find((j) => j.group === group && !j.byBinding) ?? jobs.find((j) => j.group === group);
}

/** `items` in pages of `size`, in order. */
function pagesOf<T>(items: T[], size: number): T[][] {
  const pages: T[][] = [];
  for (let start = 0; start < items.length; start += size) pages.push(items.slice(start, start + size));
  return pages;
}

/** Whether a submit script answered that its shard is fenced for another shard map (see lua/setShards). */
function isStale<T>(reply: AdmitReply<T>): reply is { stale: true } {
  return typeof reply === 'object' && reply !== null && 'stale' in reply;
}

/** Whether a submit script answered that lanes live in their tenant's shard (see ShardRouter.ofLane). */
function isMoved<T>(reply: AdmitReply<T>): reply is { moved: Map<string, string> } {
  return typeof reply === 'object' && reply !== null && 'moved' in reply;
}

/**
 * The lanes that a call's later chunks (past the first SUBMIT_CHUNK items) name a tenant for while
 * the first chunk names none for them: each with its first such item, and whether an earlier item
 * of the call puts a job into the lane first (then it holds one under another tenant by then: a
 * delayed job too, as the contract's scheduled jobs hold a lane's tenant).
 */
export function laterTenants(jobs: AdmitArgs[]): LaterTenant[] {
  const filled = new Set<string>();
  const seen = new Set<string>();
  const out: LaterTenant[] = [];
  jobs.forEach((job, i) => {
    // NOTE: a tenant a job carries by its lane's binding is no tenant the caller named: nothing to refuse.
    if (job.tenant !== undefined && !job.byBinding && !seen.has(job.group)) {
      seen.add(job.group);
      if (i >= SUBMIT_CHUNK) out.push({ group: job.group, tenant: job.tenant, first: i, ahead: filled.has(job.group) });
    }
    filled.add(job.group);
  });
  return out;
}
