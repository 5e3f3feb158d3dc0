import { LANE_ROWS_PER_SCRIPT } from '../echomq.constants';
import type { LaneInfo, TenantInfo } from '../interfaces';
import { isHeadEntry, LaneKeys } from '../redis/lane-keys';
import { scanKeys } from '../redis/key-scan';
import type { LaneContext } from '../lanes/lane-context';
import type { LaneScripts } from '../scripts/lane-scripts';
import { TenantScripts } from '../scripts/tenant-scripts';
import { shardOf } from './shard-hash';

/** How many lanes' or tenants' settings are read or written at once. */
const BATCH = 100;

/** Settings to copy or clear: lanes' and tenants', each with the shard it is in and the one it goes to. */
export interface SettingsSet {
  lanes: { from: LaneKeys; to: LaneKeys; lane: LaneInfo }[];
  tenants: { from: LaneKeys; to: LaneKeys; tenant: TenantInfo }[];
}

/** What a new shard count moves: lanes and tenants with settings, each from its old shard to its new one. */
export interface SettingsPlan extends SettingsSet {
  /** Every lane with settings under a tenant (moved or not): bound again under the new count. */
  bound: { group: string; tenant: string }[];
  /**
   * Copies a change that stopped short left where the map in force does not put their lane or
   * tenant (to = from): cleared before the copy, so none outlives a later reset of the real one.
   */
  stale: SettingsSet;
}

/**
 * @internal Carries settings when `shards()` changes a queue's count: a lane's settings (weight,
 * ceiling, rate, pause, maxDepth, ordered) and a tenant's (weight, ceiling, pause) live in its
 * shard, and the new count may put it in another. The queue then holds no job, so every lane a
 * shard knows is one with settings. Three steps around the new map: copy what moves into its new
 * shard, store the map, clear it in the old one; one script per setting, so a failure midway leaves
 * a copy too many (reads show it until `shards()` runs again), never a setting lost.
 */
export class SettingsMove {
  private readonly tenantScripts: TenantScripts;

  private readonly scripts: LaneScripts;

  /**
   * `held`: called before each batch of writes; it throws when the writes must stop (shards() passes
   * its lock's renewal: see LaneSharding). `scripts`: what the settings are written with (shards()
   * passes its fenced scripts, see LaneScripts.fencedBy); the context's by default.
   */
  constructor(private readonly ctx: LaneContext, private readonly held: () => Promise<void> = async () => undefined, scripts?: LaneScripts) {
    this.scripts = scripts ?? ctx.scripts;
    this.tenantScripts = new TenantScripts(this.scripts);
  }

  /**
   * What moves from the old map's `shards` to `n` shards (`next(i)`: the new shard i's keys): a lane
   * under a tenant goes with its tenant, any other lane to its own name's shard. `strays`: the new
   * map's shards the old one lacks. A lane or tenant found where the old map does not put it (in a
   * stray, or in another old shard than its own) is a copy a change that stopped short left: it is
   * planned stale, not moved.
   */
  async plan(shards: LaneKeys[], n: number, next: (i: number) => LaneKeys, strays: LaneKeys[] = []): Promise<SettingsPlan> {
    const plan: SettingsPlan = { lanes: [], tenants: [], bound: [], stale: { lanes: [], tenants: [] } };
    const placeOf = new Map(shards.map((s, i) => [s.base, i]));
    const tenantsOf = await this.tenantsIn([...shards, ...strays]);
    const found = await this.laneRowsIn([...shards, ...strays]);
    const bindings = await this.bindingsOf(shards, found);
    for (const from of [...shards, ...strays]) {
      const at = placeOf.get(from.base);
      for (const lane of found.get(from) ?? []) {
        // NOTE: where the old map keeps the lane: with its tenant, or where its home binds it (a
        // lane that left its tenant still goes there, see ShardRouter.ofLane), else at its home.
        if (at !== shardOf(lane.tenant ?? bindings.get(lane.group) ?? lane.group, shards.length)) {
          plan.stale.lanes.push({ from, to: from, lane });
          continue;
        }
        const to = next(shardOf(lane.tenant ?? lane.group, n));
        if (to.base !== from.base) plan.lanes.push({ from, to, lane });
        if (lane.tenant !== null) plan.bound.push({ group: lane.group, tenant: lane.tenant });
      }
      const tenants = tenantsOf.get(from) ?? [];
      for (let i = 0; i < tenants.length; i += BATCH) {
        const rows = await Promise.all(tenants.slice(i, i + BATCH).map((t) => this.tenantScripts.info(from, t)));
        for (const tenant of rows) {
          const set = tenant.weight !== 1 || tenant.limit !== null || tenant.paused;
          if (!set) continue;
          if (at !== shardOf(tenant.tenant, shards.length)) {
            plan.stale.tenants.push({ from, to: from, tenant });
            continue;
          }
          const to = next(shardOf(tenant.tenant, n));
          if (to.base !== from.base) plan.tenants.push({ from, to, tenant });
        }
      }
    }
    return plan;
  }

  /**
   * Moves one lane's settings from shard `from` to shard `to` (a lane bound to a tenant of another
   * shard than its home; it holds no job at home): copied first, then cleared.
   */
  async lane(from: LaneKeys, to: LaneKeys, group: string): Promise<void> {
    await this.clear(await this.copyLane(from, to, group));
  }

  /**
   * Copies one lane's settings from shard `from` to shard `to`, leaving them in `from` until the
   * caller knows the lane's move stands: then it clears `from` with {@link clear}, else `to` with
   * {@link clearLane}. (A lane kept under its tenant by a setting keeps it in `from` meanwhile, so a
   * submit there does not take it for a lane that let its tenant go.)
   */
  async copyLane(from: LaneKeys, to: LaneKeys, group: string): Promise<SettingsSet> {
    const one: SettingsSet = { lanes: [{ from, to, lane: await this.ctx.scripts.lane(from, group) }], tenants: [] };
    await this.copy(one);
    return one;
  }

  /** Clears lane `group`'s settings in shard `from`: a copy a setting left there, written by a shard map since replaced. */
  async clearLane(from: LaneKeys, group: string): Promise<void> {
    await this.clear({ lanes: [{ from, to: from, lane: await this.ctx.scripts.lane(from, group) }], tenants: [] });
  }

  /** As {@link clearLane}, for tenant `tenant`'s settings. */
  async clearTenant(from: LaneKeys, tenant: string): Promise<void> {
    await this.clear({ lanes: [], tenants: [{ from, to: from, tenant: await this.tenantScripts.info(from, tenant) }] });
  }

  /** Writes what moves into its new shard. */
  async copy(plan: SettingsSet): Promise<void> {
    await this.each(plan.lanes, ({ to, lane }) => this.writeLane(to, lane));
    await this.each(plan.tenants, ({ to, tenant }) => this.writeTenant(to, tenant));
  }

  /** Clears what moved in its old shard (a lane left with no setting leaves that shard's index). */
  async clear(plan: SettingsSet): Promise<void> {
    await this.each(plan.lanes, async ({ from, lane }) => {
      const g = lane.group;
      const s = this.scripts;
      if (lane.paused) await s.resume(from, g);
      if (lane.rate) await s.rate(from, g, null);
      if (lane.limit !== null) await s.limit(from, g, null);
      if (lane.ordered) await s.ordered(from, g, false);
      if (lane.maxDepth !== null) await s.maxDepth(from, g, null);
      if (lane.weight !== 1) await s.weight(from, g, 1);
    });
    await this.each(plan.tenants, async ({ from, tenant }) => {
      const t = tenant.tenant;
      if (tenant.paused) await this.tenantScripts.resume(from, t);
      if (tenant.limit !== null) await this.tenantScripts.limit(from, t, null);
      if (tenant.weight !== 1) await this.tenantScripts.weight(from, t, 1);
    });
  }

  /** `fn` over `items`, BATCH at once, each batch after `held`. */
  private async each<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
    for (let i = 0; i < items.length; i += BATCH) {
      await this.held();
      await Promise.all(items.slice(i, i + BATCH).map(fn));
    }
  }

  private async writeLane(to: LaneKeys, lane: LaneInfo): Promise<void> {
    const g = lane.group;
    const s = this.scripts;
    // NOTE: a lane with a setting keeps its tenant: it is its tenant's in its new shard too.
    if (lane.tenant !== null) await s.moveLane(to, g, lane.tenant, 'join');
    if (lane.weight !== 1) await s.weight(to, g, lane.weight);
    if (lane.limit !== null) await s.limit(to, g, lane.limit);
    if (lane.maxDepth !== null) await s.maxDepth(to, g, lane.maxDepth);
    if (lane.ordered) await s.ordered(to, g, true);
    if (lane.rate) await s.rate(to, g, lane.rate);
    const forMs = pauseLeft(lane);
    if (forMs !== undefined) await s.pause(to, g, forMs, lane.pauseReason ?? '');
  }

  private async writeTenant(to: LaneKeys, tenant: TenantInfo): Promise<void> {
    const t = tenant.tenant;
    if (tenant.weight !== 1) await this.tenantScripts.weight(to, t, tenant.weight);
    if (tenant.limit !== null) await this.tenantScripts.limit(to, t, tenant.limit);
    const forMs = pauseLeft(tenant);
    if (forMs !== undefined) await this.tenantScripts.pause(to, t, forMs, tenant.pauseReason ?? '');
  }

  /** The settings of every lane each shard knows (the queue holds no job: every such lane has some). */
  private async laneRowsIn(shards: LaneKeys[]): Promise<Map<LaneKeys, LaneInfo[]>> {
    const out = new Map<LaneKeys, LaneInfo[]>();
    for (const from of shards) {
      const groups = await this.lanesIn(from);
      const rows: LaneInfo[] = [];
      // NOTE: LANE_ROWS_PER_SCRIPT rows a script (laneRows, as scanLanes reads them), not a script per lane.
      for (let i = 0; i < groups.length; i += LANE_ROWS_PER_SCRIPT) rows.push(...await this.ctx.scripts.laneRows(from, groups.slice(i, i + LANE_ROWS_PER_SCRIPT)));
      out.set(from, rows);
    }
    return out;
  }

  /**
   * The tenants the old map's shards bind lanes of no tenant to (a lane's binding is in its home,
   * emq:{q}:bound: see lua/bindLanes-1.lua), for the lanes `found`; none on an unsharded queue.
   */
  private async bindingsOf(shards: LaneKeys[], found: Map<LaneKeys, LaneInfo[]>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (shards.length === 1) return out;
    const byHome = new Map<number, Set<string>>();
    for (const rows of found.values()) {
      for (const lane of rows) {
        if (lane.tenant !== null) continue;
        const home = shardOf(lane.group, shards.length);
        byHome.set(home, (byHome.get(home) ?? new Set()).add(lane.group));
      }
    }
    for (const [home, names] of byHome) {
      const groups = [...names];
      for (let i = 0; i < groups.length; i += 1000) {
        const part = groups.slice(i, i + 1000);
        const tenants = await this.ctx.read('shards', shards[home], this.ctx.client.hmget(shards[home].bound, ...part));
        part.forEach((g, j) => tenants[j] !== null && out.set(g, tenants[j] as string));
      }
    }
    return out;
  }

  /** The lanes a shard knows: its lane index (head entries left out) and the lanes with a maxDepth. */
  private async lanesIn(k: LaneKeys): Promise<string[]> {
    const out = new Set<string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.ctx.read('shards', k, this.ctx.client.zscan(k.index, cursor, 'COUNT', 1000));
      for (let i = 0; i < flat.length; i += 2) if (!isHeadEntry(flat[i])) out.add(flat[i]);
      cursor = next;
    } while (cursor !== '0');
    for (const g of await this.ctx.read('shards', k, this.ctx.client.hkeys(k.depth))) out.add(g);
    return [...out];
  }

  /**
   * The tenants of each shard that have settings hashes. Only where some tenant of the shard has
   * ever had a setting (meta field tenantSet): one SCAN walk of the server for all such shards
   * (LaneKeys.queuePattern), which no index spares.
   */
  private async tenantsIn(shards: LaneKeys[]): Promise<Map<LaneKeys, string[]>> {
    const marked = await Promise.all(shards.map((k) => this.ctx.read('shards', k, this.ctx.client.hexists(k.meta, 'tenantSet'))));
    const byBase = new Map(shards.filter((_, i) => marked[i] === 1).map((k) => [k.base, k]));
    const found = new Map<LaneKeys, Set<string>>();
    if (byBase.size > 0) {
      await scanKeys(this.ctx.client, shards[0].queuePattern(), 1000, async (keys) => {
        for (const key of keys) {
          const base = shards[0].shardBaseOf(key);
          const k = base === null ? undefined : byBase.get(base);
          if (k === undefined || !key.startsWith(`${k.base}t:`) || !key.endsWith(':info')) continue;
          const names = found.get(k) ?? new Set<string>();
          names.add(key.slice(k.base.length + 2, -':info'.length));
          found.set(k, names);
        }
      });
    }
    return new Map([...found].map(([k, names]) => [k, [...names]]));
  }
}

/** What is left of a pause to carry over: undefined when not paused (or a timed pause is over), null until resumed. */
function pauseLeft(s: { paused: boolean; pausedUntil: number | null }): number | null | undefined {
  if (!s.paused) return undefined;
  if (s.pausedUntil === null) return null;
  // NOTE: a timed pause keeps its end (the server's and this host's clocks agree to a few ms).
  const left = Math.round(s.pausedUntil - Date.now());
  return left > 0 ? left : undefined;
}
