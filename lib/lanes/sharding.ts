import { randomBytes } from 'crypto';
import type { Cluster } from 'ioredis';
import { MAX_SHARDS } from '../echomq.constants';
import { shardsChanging, shardsInCompat, shardsNeedCluster, shardsNotEmpty, shardsWithQueueLimit } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { LaneKeys } from '../redis/lane-keys';
import { BindingsMove, type BindingsPlan } from '../shards/bindings-move';
import { SettingsMove, type SettingsPlan } from '../shards/settings-move';
import { plainTag, SlotRange, spreadTags } from '../shards/shard-tags';
import { checkInt } from '../validation/validate';
import type { LaneContext } from './lane-context';

/** How often a running shards() renews its lock (which lives LOCK_MS in lua/setShards). */
const LOCK_RENEW_MS = 1_000;

/**
 * @internal Spreads a queue over shards: the shard map (count and tags) is stored in shard 0
 * (`emq:{q}:shards`), and every process reads it from there (see ShardCounts). Which shard holds
 * what is LaneContext's ShardRouter (shards/shard-router.ts); how claims visit the shards,
 * shards/shard-visits.ts.
 */
export class LaneSharding {
  constructor(private readonly ctx: LaneContext) {}

  async shards(queue: string, n: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const count = checkInt('n', n, 1, MAX_SHARDS, k.queue);
    if (this.ctx.options.compat === 'echomq') {
      // NOTE: the contract refuses only n > 1 there; one shard is what a compat queue always is.
      if (count === 1) return;
      throw new EchoMqError(shardsInCompat(), { code: 'MISCONFIGURED', argument: 'n', queue: k.queue });
    }
    const cluster = (this.ctx.client as Cluster).isCluster;
    if (count > 1 && !cluster && !this.ctx.options.shardsOnOneServer) {
      throw new EchoMqError(shardsNeedCluster(count), { code: 'MISCONFIGURED', argument: 'n', queue: k.queue });
    }
    const [limit, now] = await Promise.all([
      this.ctx.read('shards', k, this.ctx.client.hget(k.meta, 'limit')),
      this.ctx.shards.readMap(k),
    ]);
    if (count > 1 && limit !== null) throw new EchoMqError(shardsWithQueueLimit(k.queue), { code: 'MISCONFIGURED', argument: 'n', queue: k.queue });
    // NOTE: on a Cluster the new shards are spread over its masters now (shards/shard-tags.ts).
    const tags = count > 1 && cluster ? spreadTags(k.queue, count, await this.layout(k)) : null;
    const next = tags ?? Array.from({ length: count }, (_, i) => plainTag(k.queue, i));
    // NOTE: every other shard of the old and the new map is checked first, then shard 0 checks itself
    // and writes in one script. A submit by the old map (a process reads it about once a second)
    // is kept out by fencing every shard for the new one just before (see lua/setShards): such a
    // submit came before and is found there, or is refused and goes again by the map read anew.
    const oldShards = Array.from({ length: now.n }, (_, i) => (i === 0 ? k : new LaneKeys(k.prefix, k.queue, i, now.tags?.[i])));
    const newShards = Array.from({ length: count }, (_, i) => (i === 0 ? k : new LaneKeys(k.prefix, k.queue, i, next[i])));
    const others = new Map<string, [LaneKeys, number]>();
    oldShards.forEach((s, i) => i > 0 && others.set(s.base, [s, i]));
    newShards.forEach((s, i) => i > 0 && others.set(s.base, [s, i]));
    // NOTE: shard 0 too, so a queue that holds jobs is refused before anything is written.
    for (const [shard, i] of [[k, 0] as [LaneKeys, number], ...others.values()]) {
      const { empty } = await this.ctx.scripts.setShards(shard, count, 'check');
      if (!empty) throw new EchoMqError(shardsNotEmpty(k.queue, i), { code: 'NOT_EMPTY', queue: k.queue });
    }
    // NOTE: a queue never sharded stays as it is (no fence written).
    if (count === 1 && now.n === 1 && !(await this.ctx.read('shards', k, this.ctx.client.exists(k.shardGen)))) return;
    // NOTE: one change at a time (two at once could each fence some shards for its own map), and
    // by the map read above: one that another change replaced meanwhile is refused.
    const token = randomBytes(6).toString('hex');
    if (!(await this.ctx.scripts.changeLock(k, count, token, 'take'))) {
      throw new EchoMqError(shardsChanging(k.queue), { code: 'UNAVAILABLE', queue: k.queue });
    }
    // NOTE: the lock lives a few seconds and is renewed every second while the change runs, so one
    // whose process died holds the queue no longer than that.
    const renew = setInterval(() => void this.ctx.scripts.changeLock(k, count, token, 'renew').catch(() => undefined), LOCK_RENEW_MS);
    try {
      const still = await this.ctx.shards.readMap(k);
      if (still.n !== now.n || still.gen !== now.gen) throw new EchoMqError(shardsChanging(k.queue), { code: 'UNAVAILABLE', queue: k.queue });
      await this.fenceAndStore(k, count, tags, oldShards, newShards, token);
    } finally {
      clearInterval(renew);
      await this.ctx.scripts.changeLock(k, count, token, 'release');
    }
  }

  /** The change itself, under the queue's lock: fences, settings, the map, then what follows from it. */
  private async fenceAndStore(k: LaneKeys, count: number, tags: string[] | null, oldShards: LaneKeys[], newShards: LaneKeys[],
    token: string): Promise<void> {
    const gen = randomBytes(6).toString('hex');
    const kept = new Set(newShards.map((s) => s.base));
    const dropped = oldShards.filter((s) => !kept.has(s.base));
    // NOTE: every shard of the new map is fenced with its gen (shard 0 too, when the queue is
    // unsharded again), and the dropped ones with '-' and it (a fence no map names, so they refuse
    // every submit), each shard checked empty as it is fenced. A change that stops short puts back
    // the fences it replaced, each only while it still holds the one this call wrote: a call that
    // stalled past its lock must not put an old map's fence over a later change's.
    const fenced: { shard: LaneKeys; fence: string | null; wrote: string }[] = [];
    const restore = (): Promise<unknown> => Promise.all(fenced.map(({ shard, fence, wrote }) => this.ctx.scripts.restoreFence(shard, count, fence, wrote)));
    for (const shard of [...newShards, ...dropped]) {
      const fence = dropped.includes(shard) ? `-${gen}` : gen;
      const r = await this.ctx.scripts.setShards(shard, count, 'fence', fence);
      if (!r.empty) {
        await restore();
        const i = oldShards.indexOf(shard);
        throw new EchoMqError(shardsNotEmpty(k.queue, i >= 0 ? i : newShards.indexOf(shard)), { code: 'NOT_EMPTY', queue: k.queue });
      }
      fenced.push({ shard, fence: r.fence, wrote: fence });
    }
    // NOTE: settings live in their lane's (their tenant's) shard: they are copied once every shard
    // is fenced (a setting written before its shard's fence is in the copy; one written after it
    // is written again by the new map, see ShardRouter.onLane) and cleared once the map is stored
    // (shards/settings-move.ts). Copies an earlier change that stopped short left are cleared first.
    // The queue's own settings (shard 0's meta: its fairness and its pause) go to the new shards
    // before the map is stored too, so a change that stops after storing it leaves none behind; a
    // pauseQueue or fairness by the old map after the fences goes again by the new one.
    // NOTE: before each step that writes settings, bindings or totals, the lock is renewed, and the
    // change stops (UNAVAILABLE) if it is no longer this call's: a call that stalled past its lock
    // must not write over what a mend or a later change did meanwhile.
    const held = async (): Promise<void> => {
      if (!(await this.ctx.scripts.changeLock(k, count, token, 'renew'))) {
        throw new EchoMqError(shardsChanging(k.queue), { code: 'UNAVAILABLE', queue: k.queue });
      }
    };
    // NOTE: and every setting and binding it writes names the fence it wrote in that shard, so none
    // lands where a later change has fenced since (LaneScripts.fencedBy).
    const fences = new Map(fenced.map(({ shard, wrote }) => [shard.base, wrote]));
    const move = new SettingsMove(this.ctx, held, this.ctx.scripts.fencedBy(fences));
    const bindings = new BindingsMove(this.ctx);
    let plan: SettingsPlan;
    let rebind: BindingsPlan;
    try {
      const olds = new Set(oldShards.map((s) => s.base));
      plan = await move.plan(oldShards, count, (i) => newShards[i], newShards.filter((s) => !olds.has(s.base)));
      await move.clear(plan.stale);
      await move.copy(plan);
      await held();
      await this.copyQueueSettings(k, newShards, gen);
      // NOTE: a lane's binding to its tenant is read in its home, which the new count may move
      // (see lua/bindLanes-1.lua): each goes to its new home now, the old ones after the map is
      // stored (shards/bindings-move.ts).
      rebind = await bindings.plan(oldShards, newShards, plan.bound);
      await bindings.apply(rebind.before, count, fences, held);
      // NOTE: stored only while the lock is still this call's: a call that stalled past it may have
      // had its fences put back meanwhile (shards/fence-mend.ts).
      const { stored, lockLost } = await this.ctx.scripts.storeShardMap(k, count, tags, gen, token);
      if (lockLost) throw new EchoMqError(shardsChanging(k.queue), { code: 'UNAVAILABLE', queue: k.queue });
      if (!stored) throw new EchoMqError(shardsNotEmpty(k.queue, 0), { code: 'NOT_EMPTY', queue: k.queue });
    } catch (err) {
      // NOTE: the map was not stored: the fences go back to the map in force (a copy of a setting
      // may stay in a new shard, as the settings move says; the old count's bindings are whole).
      await restore().catch(() => undefined);
      throw err;
    }
    this.ctx.shards.counts.set(k, { n: count, tags: tags ?? undefined, gen });
    await move.clear(plan);
    // NOTE: a shard the new map drops hands its totals to shard 0, so they still count from the queue's start.
    for (const shard of dropped) {
      await held();
      const totals = await this.ctx.scripts.foldTotals(shard, 'take');
      if (totals.some((n) => n > 0)) await this.ctx.scripts.foldTotals(k, 'add', totals);
    }
    // NOTE: the bindings only the old count read go.
    await bindings.apply(rebind.after, count, fences, held);
  }

  /**
   * Shard 0's fairness and queue-wide pause, written to every other shard of `shards` as they are
   * (a shard an earlier change left paused, or in another fairness, is set back too), each only
   * while it holds this change's fence (`gen`).
   */
  private async copyQueueSettings(k: LaneKeys, shards: LaneKeys[], gen: string): Promise<void> {
    const [fair, paused] = await this.ctx.read('shards', k, this.ctx.client.hmget(k.meta, 'fair', 'paused'));
    await Promise.all(shards.filter((s) => s.base !== k.base)
      .map((shard) => this.ctx.scripts.shardMeta(shard, shards.length, gen, fair ?? '', paused !== null)));
  }

  /** How many shards the queue has, read from the server now. */
  async count(queue: string): Promise<number> {
    const k = this.ctx.keysOf(queue);
    if (this.ctx.options.compat === 'echomq') return 1;
    const map = await this.ctx.shards.readMap(k);
    this.ctx.shards.counts.set(k, map);
    return map.n;
  }

  /** Which master serves which slots, as the Cluster says now (CLUSTER SLOTS). */
  private async layout(k: LaneKeys): Promise<SlotRange[]> {
    const ranges = (await this.ctx.read('shards', k, (this.ctx.client as Cluster).cluster('SLOTS'))) as unknown as [number, number, [string, number, string?]][];
    return ranges.map(([from, to, master]) => ({ from: Number(from), to: Number(to), master: master[2] ?? `${master[0]}:${master[1]}` }));
  }
}
