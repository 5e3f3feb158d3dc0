import { MAX_COST, SUBMIT_CHUNK } from '../echomq.constants';
import { idsExhausted, invalidArgument, laneFull, notOnShardedQueue, tenantsInCompat, tenantTaken } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { mintJobId } from '../ids/job-id';
import type { SubmitItem, SubmitOptions } from '../interfaces';
import type { AdmitArgs, AdmitReply, AdmitResult, DepthRefusal, LaneRoom, LaterTenant, TenantRefusal } from '../scripts/lane-scripts';
import { checkDedupKey, checkJobId, checkName, checkOptInt, checkOptions, encodePayload } from '../validation/validate';
import { captureTraceContext } from '../tracing/job-tracing';
import type { LaneKeys } from '../redis/lane-keys';
import { shardOf } from '../shards/shard-hash';
import type { LaneContext } from './lane-context';

const MAX_DELAY_MS = 10 * 365 * 24 * 3600 * 1000;
const MINT_RETRIES = 5;

/** @internal Admits work into lanes: submit and submitMany. */
export class LaneAdmission {
  constructor(private readonly ctx: LaneContext) {}

  async submit(queue: string, group: unknown, payload: unknown, opts: unknown): Promise<string> {
    const k0 = this.ctx.keysOf(queue);
    const job = this.admitArgs(k0.queue, group, payload, opts);
    const shards = await this.ctx.shards.count(k0);
    if (shards > 1 && job.tenant !== undefined) this.refuseTenant(k0.queue, 'opts.tenant');
    const k = shards === 1 ? k0 : k0.shardKeys(shardOf(job.group, shards));
    for (let i = 0; ; i++) {
      const r = this.admitted(k.queue, [job], '', await this.ctx.scripts.submit(k, job));
      if (r.status !== 'collide') {
        if (shards > 1) this.ctx.shards.jobs.remember(k.queue, r.id, k.shard);
        return this.ctx.durability.confirm('submit', k.queue, r.id);
      }
      // NOTE: the id is another job's; returning it would drop this job while claiming success.
      if (i >= MINT_RETRIES) throw new EchoMqError(idsExhausted(k.queue, MINT_RETRIES + 1), { code: 'IDS_EXHAUSTED', queue: k.queue });
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
    const shards = await this.ctx.shards.count(k);
    if (shards === 1) return this.ctx.durability.confirm('submitMany', k.queue, await this.submitIn(k, jobs, jobs.map((_, i) => i)));
    const named1 = jobs.findIndex((j) => j.tenant !== undefined);
    if (named1 >= 0) this.refuseTenant(k.queue, `items[${named1}].opts.tenant`);
    // NOTE: each shard's items go in one call of their own, all at once; a refusal by one shard's
    // script (a full lane) leaves what the other shards admitted (the README says so).
    const parts = new Map<number, number[]>();
    jobs.forEach((job, i) => {
      const s = shardOf(job.group, shards);
      const part = parts.get(s);
      if (part) part.push(i);
      else parts.set(s, [i]);
    });
    const ids = new Array<string>(jobs.length);
    await Promise.all([...parts].map(async ([s, places]) => {
      const got = await this.submitIn(k.shardKeys(s), places.map((i) => jobs[i]), places);
      got.forEach((id, j) => {
        ids[places[j]] = id;
        this.ctx.shards.jobs.remember(k.queue, id, s);
      });
    }));
    return this.ctx.durability.confirm('submitMany', k.queue, ids);
  }

  /**
   * Admits `jobs` into one shard `k`, in chunks; `places[i]` is job i's place in the caller's items
   * (what a refusal names). Returns the ids in the order of `jobs`.
   */
  private async submitIn(k: LaneKeys, jobs: AdmitArgs[], places: number[]): Promise<string[]> {
    // NOTE: a call of many chunks checks every chunk before it writes one, so one refused item
    // refuses the whole call (a writer between the checks and the writes can still make a later
    // chunk refuse). Where a lane has a maxDepth, a first pass over every chunk adds up each such
    // lane's new jobs against its room (and checks the tenants on the way); else the first chunk
    // checks the tenants that the later ones name (laterTenants: a few values per lane, not a
    // second pass over every item).
    const ceilings = jobs.length > SUBMIT_CHUNK && (await this.ctx.scripts.hasDepthCeilings(k));
    const later = jobs.length > SUBMIT_CHUNK && !ceilings && jobs.some((j) => j.tenant !== undefined) ? laterTenants(jobs) : [];
    if (ceilings) {
      const lanes = new Map<string, LaneRoom & { first: number }>();
      for (let start = 0; start < jobs.length; start += SUBMIT_CHUNK) {
        const chunk = jobs.slice(start, start + SUBMIT_CHUNK);
        const rooms = this.admitted(k.queue, chunk, 'items', await this.ctx.scripts.submitMany(k, chunk, true), (i) => places[start + i]) as LaneRoom[];
        for (const r of rooms) {
          const seen = lanes.get(r.group);
          if (seen) seen.fresh += r.fresh;
          else lanes.set(r.group, { ...r, first: start + chunk.findIndex((j) => j.group === r.group) });
        }
      }
      for (const r of lanes.values()) {
        if (r.fresh > r.room) this.refuseFull(k.queue, jobs[r.first].group, `items[${places[r.first]}].group`, r.n);
      }
    }
    const ids = new Array<string>(jobs.length);
    for (let start = 0; start < jobs.length; start += SUBMIT_CHUNK) {
      let batch = jobs.slice(start, start + SUBMIT_CHUNK).map((job, j) => ({ job, at: start + j }));
      for (let attempt = 0; batch.length > 0; attempt++) {
        const chunk = batch.map((b) => b.job);
        const check = start === 0 && attempt === 0 ? later : [];
        // NOTE: a refusal of a later chunk's lane names its item by its place in the call (the first chunk's offset is 0).
        const reply = await this.ctx.scripts.submitMany(k, chunk, false, check);
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
    return ids;
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

  /** Tenants are not yet routed on a sharded queue (a tenant and its lanes must share one shard). */
  private refuseTenant(queue: string, argument: string): never {
    throw new EchoMqError(notOnShardedQueue('a submit naming a tenant', queue), { code: 'MISCONFIGURED', argument, queue });
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
 * The lanes that a call's later chunks (past the first SUBMIT_CHUNK items) name a tenant for while
 * the first chunk names none for them: each with its first such item, and whether an earlier item
 * of the call puts a job into the lane first (then it holds one under another tenant by then).
 */
export function laterTenants(jobs: AdmitArgs[]): LaterTenant[] {
  const filled = new Set<string>();
  const seen = new Set<string>();
  const out: LaterTenant[] = [];
  jobs.forEach((job, i) => {
    if (job.tenant !== undefined && !seen.has(job.group)) {
      seen.add(job.group);
      if (i >= SUBMIT_CHUNK) out.push({ group: job.group, tenant: job.tenant, first: i, ahead: filled.has(job.group) });
    }
    if (job.delayMs === 0) filled.add(job.group);
  });
  return out;
}
