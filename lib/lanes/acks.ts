import { ACK_CHUNK, ERROR_MAX_CHARS, MAX_KEEP_COMPLETED_MS } from '../echomq.constants';
import { invalidArgument } from '../echomq.messages';
import { resolveBackoff } from '../echomq.options';
import { EchoMqError } from '../errors';
import type { FailOptions, FailOutcome } from '../interfaces';
import { checkInt, checkJobId, checkOptInt, checkOptions, checkToken, encodePayload } from '../validation/validate';
import { MAX_LEASE_MS } from './claims';

/** The largest progress value, as JSON: 64 KiB. */
export const MAX_PROGRESS_BYTES = 65_536;
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneContext } from './lane-context';

/**
 * @internal What the holder of a job does with it: complete, fail, release, extend. Each is fenced
 * by the attempt token, so a holder whose lease was lost changes nothing.
 */
export class LaneAcks {
  constructor(private readonly ctx: LaneContext) {}

  async complete(queue: string, jobId: unknown, token: unknown, result: unknown, opts?: unknown): Promise<boolean> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    const text = this.resultText(result, 'result', k.queue);
    const keepMs = this.keepMsOf(opts, k.queue);
    const shard = await this.ctx.shards.ofJob(k, id);
    const done = await this.ctx.scripts.complete(shard, id, t, text, keepMs);
    return this.ctx.durability.confirm('complete', k.queue, done, done, shard);
  }

  async completeMany(queue: string, acks: unknown, opts?: unknown): Promise<boolean[]> {
    const k = this.ctx.keysOf(queue);
    const keepMs = this.keepMsOf(opts, k.queue);
    if (!Array.isArray(acks)) {
      throw new EchoMqError(invalidArgument('acks', 'must be an array of { jobId, token }', acks), { argument: 'acks', queue: k.queue });
    }
    const checked = acks.map((a: { jobId?: unknown; token?: unknown; result?: unknown }, i) => {
      if (typeof a !== 'object' || a === null) {
        throw new EchoMqError(invalidArgument(`acks[${i}]`, 'must be { jobId, token }', a), { argument: `acks[${i}]`, queue: k.queue });
      }
      return {
        id: checkJobId(`acks[${i}].jobId`, a.jobId, k.queue),
        token: checkInt(`acks[${i}].token`, a.token, 1, Number.MAX_SAFE_INTEGER, k.queue),
        result: this.resultText(a.result, `acks[${i}].result`, k.queue),
      };
    });
    const wrote: LaneKeys[] = [];
    const out = await this.perShard(k, checked, (shard, part) => {
      wrote.push(shard);
      return this.ctx.scripts.completeMany(shard, part, keepMs);
    });
    return this.ctx.durability.confirm('complete', k.queue, out, out.includes(true), wrote);
  }

  /** `opts.keepCompletedMs` of complete and completeMany, else the module's. */
  private keepMsOf(opts: unknown, queue: string): number {
    const o = checkOptions<{ keepCompletedMs: number }>('opts', opts, queue);
    return checkOptInt('opts.keepCompletedMs', o.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS, queue) ?? this.ctx.options.keepCompletedMs;
  }

  /** A handler's result as the scripts keep it: its JSON ('' for undefined: no result), within maxPayloadBytes. */
  private resultText(result: unknown, argument: string, queue: string): string {
    if (result === undefined) return '';
    return encodePayload(result, this.ctx.options.maxPayloadBytes, queue, argument);
  }

  async fail(queue: string, jobId: unknown, token: unknown, error: unknown, opts: unknown): Promise<FailOutcome> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    const o = checkOptions<FailOptions>('opts', opts, k.queue);
    const maxAttempts = checkOptInt('opts.maxAttempts', o.maxAttempts, 1, 1_000_000, k.queue) ?? this.ctx.maxAttemptsOf(k.queue);
      if (o.dead !== undefined && typeof o.dead !== 'boolean') {
        throw new EchoMqError(invalidArgument('opts.dead', 'must be a boolean', o.dead), { argument: 'opts.dead', queue: k.queue });
      }
      const b = o.backoff === undefined ? this.ctx.options.backoff : resolveBackoff(o.backoff, 'opts.backoff');
      const shard = await this.ctx.shards.ofJob(k, id);
      const outcome = await this.ctx.scripts.fail(shard, id, t, reasonOf(error), { maxAttempts, delayMs: b.delayMs, factor: b.factor, maxDelayMs: b.maxDelayMs },
        o.dead === true);
    return this.ctx.durability.confirm('fail', k.queue, outcome, outcome !== 'stale', shard);
  }

  /** The job's group when its progress was kept, null when the token is stale (nothing changed). */
  async progress(queue: string, jobId: unknown, token: unknown, value: unknown): Promise<string | null> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    const isNumber = typeof value === 'number' && Number.isFinite(value);
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (!isNumber && !isObject) {
      throw new EchoMqError(invalidArgument('value', 'must be a finite number or a JSON object', value), { argument: 'value', queue: k.queue });
    }
    const text = encodePayload(value, MAX_PROGRESS_BYTES, k.queue, 'value', null);
    // NOTE: an object's toJSON may make it a string or an array (a Date does): what is kept must be
    // what job() can give back as a number or an object.
    if (isObject && !/^[{\-\d]/.test(text)) {
      throw new EchoMqError(invalidArgument('value', 'must be a finite number or a JSON object (its toJSON() gives another JSON type)', value), { argument: 'value', queue: k.queue });
    }
    return this.ctx.scripts.progress(await this.ctx.shards.ofJob(k, id), id, t, text);
  }

  async release(queue: string, jobId: unknown, token: unknown): Promise<boolean> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    return this.ctx.scripts.release(await this.ctx.shards.ofJob(k, id), id, t);
  }

  /** One new lease deadline per job, in order, 0 where the lease is lost; one script call per chunk. */
  async extendMany(queue: string, leases: unknown, leaseMs: unknown): Promise<number[]> {
    const k = this.ctx.keysOf(queue);
    if (!Array.isArray(leases)) {
      throw new EchoMqError(invalidArgument('leases', 'must be an array of { jobId, token }', leases), { argument: 'leases', queue: k.queue });
    }
    const checked = leases.map((l: { jobId?: unknown; token?: unknown }, i) => {
      if (typeof l !== 'object' || l === null) {
        throw new EchoMqError(invalidArgument(`leases[${i}]`, 'must be { jobId, token }', l), { argument: `leases[${i}]`, queue: k.queue });
      }
      return { id: checkJobId(`leases[${i}].jobId`, l.jobId, k.queue), token: checkInt(`leases[${i}].token`, l.token, 1, Number.MAX_SAFE_INTEGER, k.queue) };
    });
    const ms = checkInt('leaseMs', leaseMs, 1, MAX_LEASE_MS, k.queue);
    return this.perShard(k, checked, (shard, part) => this.ctx.scripts.extendMany(shard, part, ms));
  }

  /**
   * Runs `each` on the items of each shard that holds their jobs (all of them, while unsharded),
   * ACK_CHUNK at a time, and gives its answers back in the items' order.
   */
  private async perShard<I extends { id: string }, R>(k: LaneKeys, items: I[], each: (shard: LaneKeys, part: I[]) => Promise<R[]>): Promise<R[]> {
    const out = new Array<R>(items.length);
    for (const [shard, places] of await this.ctx.shards.byJob(k, items.map((item) => item.id))) {
      for (let start = 0; start < places.length; start += ACK_CHUNK) {
        const part = places.slice(start, start + ACK_CHUNK);
        (await each(shard, part.map((i) => items[i]))).forEach((answer, j) => { out[part[j]] = answer; });
      }
    }
    return out;
  }

  /** The new lease deadline, 0 when the lease is lost. */
  async extendUntil(queue: string, jobId: unknown, token: unknown, leaseMs: unknown): Promise<number> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    const t = checkToken(token, k.queue);
    const ms = checkInt('leaseMs', leaseMs, 1, MAX_LEASE_MS, k.queue);
    return this.ctx.scripts.extend(await this.ctx.shards.ofJob(k, id), id, t, ms);
  }
}

/** The text kept as a failure's `last_error`: an Error's message, a string, or JSON; cut to a bound. */
function reasonOf(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === 'string') text = error;
  else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  return text.length > ERROR_MAX_CHARS ? text.slice(0, ERROR_MAX_CHARS) : text;
}
