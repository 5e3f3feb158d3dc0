import { shardsChanging } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { LaneContext } from '../lanes/lane-context';
import type { LaneKeys } from '../redis/lane-keys';
import { shardOf } from './shard-hash';

/** How many entries one script writes or drops at most. */
const BATCH = 500;

/** One shard's edit: lanes bound there (lane, tenant), lanes unbound there, records of lanes gone from a tenant dropped there. */
interface ShardEdit {
  bind: [string, string][];
  unbind: string[];
  ungone: string[];
}

/** What a change of the shard count does to the lanes' bindings: before it stores its map, and after. */
export interface BindingsPlan {
  before: Map<LaneKeys, ShardEdit>;
  after: Map<LaneKeys, ShardEdit>;
}

/**
 * @internal Carries the lanes' tenant bindings across a change of the shard count. A lane's binding
 * (emq:{q}:bound, lane -> tenant) is read in its home, the shard its name hashes to under the count
 * in force, and a record of a lane gone from a tenant (emq:{q}:unbound) in that tenant's shard; an
 * entry anywhere else is read by nobody (or wrongly, once a later count makes that shard the lane's
 * home again). Before the map is stored, each lane's binding is written in its new home too and only
 * entries neither count reads are dropped, so a change that dies there leaves the old count's
 * bindings whole; after it, the entries only the old count read are dropped, and a binding a process
 * made by the new map meanwhile (in its lane's new home) is never touched.
 */
export class BindingsMove {
  constructor(private readonly ctx: LaneContext) {}

  /**
   * The plan from the old map's shards to the new map's: the bindings the old count reads, and those
   * of `settled` (lanes with settings under a tenant), go to the lanes' new homes. No count of one
   * shard reads bindings.
   */
  async plan(oldShards: LaneKeys[], newShards: LaneKeys[], settled: { group: string; tenant: string }[]): Promise<BindingsPlan> {
    const nOld = oldShards.length;
    const nNew = newShards.length;
    const oldAt = new Map(oldShards.map((s, i) => [s.base, i]));
    const newAt = new Map(newShards.map((s, i) => [s.base, i]));
    const shards = [...new Map([...oldShards, ...newShards].map((s) => [s.base, s])).values()];
    const bound = new Map<LaneKeys, Map<string, string>>();
    const gone = new Map<LaneKeys, Map<string, string>>();
    for (const s of shards) {
      bound.set(s, await this.entries(s, s.bound));
      gone.set(s, await this.entries(s, s.unbound));
    }
    const readOld = (s: LaneKeys, name: string): boolean => nOld > 1 && oldAt.get(s.base) === shardOf(name, nOld);
    const readNew = (s: LaneKeys, name: string): boolean => nNew > 1 && newAt.get(s.base) === shardOf(name, nNew);
    const truth = new Map<string, string>();
    for (const [s, entries] of bound) for (const [g, t] of entries) if (readOld(s, g)) truth.set(g, t);
    for (const { group, tenant } of settled) truth.set(group, tenant);

    const plan: BindingsPlan = { before: new Map(), after: new Map() };
    const edit = (when: Map<LaneKeys, ShardEdit>, s: LaneKeys): ShardEdit => {
      let e = when.get(s);
      if (e === undefined) when.set(s, (e = { bind: [], unbind: [], ungone: [] }));
      return e;
    };
    if (nNew > 1) {
      for (const [g, t] of truth) {
        const home = newShards[shardOf(g, nNew)];
        if (bound.get(home)?.get(g) !== t) edit(plan.before, home).bind.push([g, t]);
      }
    }
    for (const [s, entries] of bound) {
      for (const g of entries.keys()) {
        const kept = readNew(s, g) && truth.has(g);
        if (!readOld(s, g) && !kept) edit(plan.before, s).unbind.push(g);
        else if (readOld(s, g) && !kept) edit(plan.after, s).unbind.push(g);
      }
    }
    for (const [s, records] of gone) {
      for (const [g, t] of records) {
        if (!readOld(s, t)) edit(plan.before, s).ungone.push(g);
        else if (!readNew(s, t)) edit(plan.after, s).ungone.push(g);
      }
    }
    return plan;
  }

  /**
   * Writes `edits` (a plan's before or after), each shard's only while it holds the fence the change
   * wrote there (`fences`: shard base -> fence; see lua/setShards), `held` before each script; a shard
   * fenced since by a later change stops it (UNAVAILABLE).
   */
  async apply(edits: Map<LaneKeys, ShardEdit>, n: number, fences: ReadonlyMap<string, string>, held: () => Promise<void>): Promise<void> {
    for (const [s, e] of edits) {
      for (let i = 0; i < Math.max(e.bind.length, e.unbind.length, e.ungone.length); i += BATCH) {
        await held();
        const ok = await this.ctx.scripts.shardBindings(s, n, fences.get(s.base) ?? '', e.bind.slice(i, i + BATCH),
          e.unbind.slice(i, i + BATCH), e.ungone.slice(i, i + BATCH));
        if (!ok) throw new EchoMqError(shardsChanging(s.queue), { code: 'UNAVAILABLE', queue: s.queue });
      }
    }
  }

  /** A hash's entries, read by HSCAN. */
  private async entries(s: LaneKeys, key: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.ctx.read('shards', s, this.ctx.client.hscan(key, cursor, 'COUNT', 1000));
      for (let i = 0; i < flat.length; i += 2) out.set(flat[i], flat[i + 1]);
      cursor = next;
    } while (cursor !== '0');
    return out;
  }
}
