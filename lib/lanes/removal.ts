import { invalidArgument, queueHasActiveJobs } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { CleanOptions, DrainOptions, ObliterateOptions } from '../interfaces';
import { scanKeys } from '../redis/key-scan';
import { LaneKeys } from '../redis/lane-keys';
import { checkJobId, checkName, checkOptInt, checkOptions } from '../validation/validate';
import type { LaneContext } from './lane-context';

/** Jobs one drain page removes at most (see drainLanes-13.lua; measured in the README). */
export const DRAIN_PAGE = 100;
/** Jobs or keys one clean or obliterate page handles at most. */
const CLEAN_PAGE = 250;
const SCAN_COUNT = 1_000;
/** The longest any olderThanMs may reach back: ten years. */
const MAX_AGE_MS = 315_360_000_000;

/**
 * @internal Taking jobs out of a queue before they complete, and the queue itself: cancel, drain,
 * clean, obliterate. Each is one script call, or pages of script calls for big work, and leaves
 * the lanes, ring, lane index and totals consistent between pages.
 */
export class LaneRemoval {
  constructor(private readonly ctx: LaneContext) {}

  /**
   * One walk of the server's keys (SCAN MATCH, see LaneKeys.queuePattern) for every shard of a
   * queue, rather than one walk per shard: each page's keys go to `onShard` by the shard they
   * belong to. With `others`, keys of a shard the queue no longer has (an older count's) come too,
   * with keys made for their base; without, they are left out.
   */
  private async walkShards(k: LaneKeys, shards: LaneKeys[], others: boolean, onShard: (shard: LaneKeys, keys: string[]) => Promise<void>): Promise<void> {
    const byBase = new Map(shards.map((s) => [s.base, s]));
    await scanKeys(this.ctx.client, k.queuePattern(), SCAN_COUNT, async (keys) => {
      const pages = new Map<LaneKeys, string[]>();
      for (const key of keys) {
        const base = k.shardBaseOf(key);
        if (base === null) continue;
        let shard = byBase.get(base);
        if (shard === undefined) {
          if (!others) continue;
          shard = new LaneKeys(k.prefix, k.queue, -1, base.slice(k.prefix.length + 2, -2));
          byBase.set(base, shard);
        }
        const page = pages.get(shard);
        if (page) page.push(key);
        else pages.set(shard, [key]);
      }
      for (const [shard, page] of pages) await onShard(shard, page);
    });
  }

  /** What a cancel removed (its lane, and the state it was in), null when it removed nothing. */
  async cancel(queue: string, jobId: unknown): Promise<{ group: string; state: string } | null> {
    const k = this.ctx.keysOf(queue);
    const id = checkJobId('jobId', jobId, k.queue);
    return this.ctx.shards.byId(k, id, (shard) => this.ctx.scripts.cancel(shard, id), (r) => r !== null);
  }

  async drain(queue: string, opts: unknown): Promise<number> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<DrainOptions>('opts', opts, k.queue);
    const group = o.group === undefined ? '' : checkName('opts.group', o.group, k.queue);
    let removed = 0;
    const drainIn = async (shards: LaneKeys[]): Promise<void> => {
      for (const shard of shards) {
        let page = { removed: 0, phase: 's', offset: 0 };
        do {
          page = await this.ctx.scripts.drainPage(shard, group, page.phase, page.offset, DRAIN_PAGE);
          removed += page.removed;
        } while (page.phase !== 'done');
      }
    };
    // NOTE: by the map in force: drained again by a new one (see ShardRouter.onEvery, onLane).
    if (group === '') await this.ctx.shards.onEvery(k, drainIn);
    else await this.ctx.shards.onLane(k, group, (shard) => drainIn([shard]));
    return removed;
  }

  async clean(queue: string, kind: unknown, opts: unknown): Promise<number> {
    const k = this.ctx.keysOf(queue);
    if (kind !== 'dead' && kind !== 'completed') {
      throw new EchoMqError(invalidArgument('kind', "must be 'dead' or 'completed'", kind), { argument: 'kind', queue: k.queue });
    }
    const o = checkOptions<CleanOptions>('opts', opts, k.queue);
    const olderThanMs = checkOptInt('opts.olderThanMs', o.olderThanMs, 0, MAX_AGE_MS, k.queue) ?? 0;
    const limit = checkOptInt('opts.limit', o.limit, 1, Number.MAX_SAFE_INTEGER, k.queue) ?? Number.MAX_SAFE_INTEGER;
    let removed = 0;
    const shards = await this.ctx.shards.all(k);
    if (kind === 'dead') {
      for (const shard of shards) {
        for (;;) {
          const want = Math.min(CLEAN_PAGE, limit - removed);
          if (want <= 0) return removed;
          const n = await this.ctx.scripts.cleanPage(shard, 'dead', olderThanMs, want);
          removed += n;
          if (n < want) break;
        }
      }
      return removed;
    }
    // NOTE: kept completed rows are in no index (they expire by themselves), so they are found by SCAN.
    await this.walkShards(k, shards, false, async (shard, keys) => {
      const prefix = shard.job('');
      const rows = keys.filter((key) => key.startsWith(prefix));
      for (let i = 0; i < rows.length && removed < limit; i += CLEAN_PAGE) {
        const ids = rows.slice(i, i + CLEAN_PAGE).map((key) => key.slice(prefix.length));
        removed += await this.ctx.scripts.cleanPage(shard, 'completed', olderThanMs, Math.min(CLEAN_PAGE, limit - removed), ids);
      }
    });
    return removed;
  }

  async obliterate(queue: string, opts: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const o = checkOptions<ObliterateOptions>('opts', opts, k.queue);
    if (o.force !== undefined && typeof o.force !== 'boolean') {
      throw new EchoMqError(invalidArgument('opts.force', 'must be a boolean', o.force), { argument: 'opts.force', queue: k.queue });
    }
    const force = o.force === true;
    const shards = await this.ctx.shards.all(k);
    if (shards.length > 1 && !force) {
      // NOTE: every shard's leases are counted before any shard is touched, so a refusal deletes nothing.
      const active = await Promise.all(shards.map((s) => this.ctx.read('obliterate', s, this.ctx.client.zcard(s.active))));
      const total = active.reduce((a: number, b) => a + Number(b), 0);
      if (total > 0) throw new EchoMqError(queueHasActiveJobs(k.queue, total), { code: 'NOT_EMPTY', queue: k.queue });
    }
    // NOTE: shard 0 last: it holds the shard map, which must outlive the other shards' keys (it is
    // deleted after the walk), so a call cut short leaves a map that still finds them.
    for (const shard of [...shards].reverse()) {
      const first = await this.ctx.scripts.obliteratePage(shard, force, true, []);
      if (first < 0) throw new EchoMqError(queueHasActiveJobs(k.queue, -1 - first), { code: 'NOT_EMPTY', queue: k.queue });
    }
    await this.walkShards(k, shards, true, async (shard, keys) => {
      const doomed = keys.filter((key) => key !== k.shards);
      for (let i = 0; i < doomed.length; i += CLEAN_PAGE) await this.ctx.scripts.obliteratePage(shard, true, false, doomed.slice(i, i + CLEAN_PAGE));
    });
    await this.ctx.scripts.obliteratePage(k, true, false, [k.shards]);
    if (shards.length > 1) this.ctx.shards.counts.set(k, { n: 1 });
  }
}
