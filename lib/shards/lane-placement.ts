import { laneMoving, laneSettingsLeftBehind, tenantTaken } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { LaneContext } from '../lanes/lane-context';
import type { LaneKeys } from '../redis/lane-keys';
import type { AdmitArgs } from '../scripts/lane-scripts';
import { SettingsMove } from './settings-move';
import { shardOf } from './shard-hash';

/** How many times a submit asks again where a lane lives before it gives up (a lane moving meanwhile). */
const MAX_RELEARN = 8;
/**
 * How long a submit waits before its n-th ask after the first, × n (10 ms, then 20, … 70: about
 * 0.3 s in all), so that a move or release under way in another process, a few round trips long,
 * has finished by the time it asks again.
 */
const RELEARN_PAUSE_MS = 10;

/** A lane a submit names a tenant for, as its home shard's bindLanes takes it. */
interface BindLane {
  group: string;
  tenant: string;
  away: boolean;
  /** The job's place among those given (what a refusal names). */
  item: number;
}

/**
 * @internal Where a submit's lanes live on a sharded queue, with tenants. A lane bound to a tenant
 * lives in the tenant's shard; its home (the shard its own name hashes to) holds the binding, the
 * truth (lua/bindLanes-1.lua). A submit naming a tenant binds the lane first; naming another
 * tenant than the lane's, it moves the lane while it holds no job (lua/moveLane-1.lua: recorded
 * gone in the old tenant's shard, bound anew at home, its settings carried). A shard that answers
 * 'moved' makes the submit learn the binding again and go where it says.
 */
export class LanePlacement {
  private readonly settings: SettingsMove;

  constructor(private readonly ctx: LaneContext) {
    this.settings = new SettingsMove(ctx);
  }

  /**
   * Where a job goes on a queue of `n` shards: the shard's keys and the job as sent there. A lane
   * bound to a tenant, or named with one, lives in the tenant's shard, and its jobs go there naming
   * the tenant; a lane this process knows no binding of goes home, whose script says where a bound
   * one lives.
   */
  route(k0: LaneKeys, n: number, job: AdmitArgs): [LaneKeys, AdmitArgs] {
    if (n === 1) return [k0, job];
    if (job.tenant !== undefined) return [k0.shardKeys(shardOf(job.tenant, n)), job];
    const tenant = this.ctx.shards.bindings.tenantOf(k0.queue, job.group);
    if (tenant === undefined) return [k0.shardKeys(shardOf(job.group, n)), job];
    return [k0.shardKeys(shardOf(tenant, n)), { ...job, tenant, byBinding: true }];
  }

  /**
   * Takes in what a shard answered 'moved' (lane -> the tenant its home binds it to; '' when the
   * lane has left the tenant `sent` gave for it, or is there under another: then its home is asked;
   * '-' when it let go the tenant of its binding: see release); `round` counts the answers one
   * submit has had, so a lane that keeps moving ends it.
   */
  async learn(k0: LaneKeys, n: number, moved: Map<string, string>, sent: (group: string) => AdmitArgs | undefined, round: number): Promise<void> {
    if (round >= MAX_RELEARN) {
      throw new EchoMqError(laneMoving(k0.queue, [...moved.keys()][0], MAX_RELEARN), { code: 'UNAVAILABLE', queue: k0.queue });
    }
    if (round > 0) await new Promise((r) => setTimeout(r, RELEARN_PAUSE_MS * round));
    // NOTE: taken before the answers are read: one read by a map since replaced is not remembered.
    const gen = this.ctx.shards.genOf(k0, n);
    await Promise.all([...moved].map(async ([group, tenant]) => {
      if (tenant !== '' && tenant !== '-') return this.ctx.shards.bindings.remember(k0.queue, group, tenant, gen);
      // NOTE: read from the home, and remembered (or forgotten) by the router as for any lane.
      const home = await this.ctx.shards.binding(k0, group, n);
      const job = sent(group);
      if (home.tenant === null || home.tenant !== job?.tenant) return;
      // NOTE: the home still binds the lane to the tenant its shard says it left or let go.
      if (job.byBinding) return this.release(k0, n, group, home.tenant, home.version);
      // NOTE: a submit that names that tenant: the move or release that recorded the lane gone did
      // not reach the home (it died, or is under way). The home is the truth: the binding is written
      // again (its version raised, so a move or release under way finds it changed and stops), and
      // then the record goes.
      const r = await this.ctx.scripts.bindLanes(k0.shardKeys(shardOf(group, n)),
        [{ group, tenant: home.tenant, away: shardOf(home.tenant, n) !== shardOf(group, n), from: home.tenant, expect: home.version }]);
      if ('ok' in r) await this.ctx.scripts.moveLane(k0.shardKeys(shardOf(home.tenant, n)), group, home.tenant, 'in');
    }));
  }

  /**
   * A lane bound to `tenant` (binding `version`) that let it go (no job, no setting that keeps a
   * tenant, in the tenant's shard) becomes a lane of no tenant, as on an unsharded queue: recorded
   * gone in the tenant's shard (moveLane 'release', refused once it holds a job or has a tenant
   * there again), its settings taken home (a maxDepth: the only one a lane without a tenant may
   * have), then unbound at home if the binding is still the one read. A submit naming the tenant
   * meanwhile writes the binding again (learn), so the unbinding stops, the settings go back, and
   * the lane stays the tenant's.
   */
  private async release(k0: LaneKeys, n: number, group: string, tenant: string, version: string): Promise<void> {
    const from = k0.shardKeys(shardOf(tenant, n));
    if (!(await this.ctx.scripts.moveLane(from, group, tenant, 'release'))) return;
    const home = k0.shardKeys(shardOf(group, n));
    const away = from.shard !== home.shard;
    const moved = away ? await this.settings.copyLane(from, home, group) : undefined;
    const r = await this.ctx.scripts.bindLanes(home, [{ group, tenant: '', away, from: tenant, expect: version }]);
    if (moved && 'ok' in r) await this.settings.clear(moved);
    else if (moved) await this.dropCopy(k0, n, group, home);
    // NOTE: whatever it said, the home is asked again by the next route.
    this.ctx.shards.bindings.forgetLane(k0.queue, group);
  }

  /**
   * Clears the copy of a lane's settings that a move or release, overtaken by another process, made
   * in shard `to`: unless the lane lives there now after all (the other process brought it there,
   * with its settings), as its home's binding says.
   */
  private async dropCopy(k0: LaneKeys, n: number, group: string, to: LaneKeys): Promise<void> {
    const now = await this.ctx.shards.binding(k0, group, n);
    if (shardOf(now.tenant ?? group, n) !== to.shard) await this.settings.clearLane(to, group);
  }

  /**
   * Refuses, before anything of the call is written, what a submitMany's binding of its lanes would
   * refuse part way (bind writes a lane's binding, and may move its settings, while another lane of
   * the call is still to be refused), and what an unsharded queue refuses by the order of the items:
   * a lane named with a tenant after an item of the call that names none for it (that item puts a
   * job into the lane under the tenant the lane has then, or none). Asks only the lanes this
   * process does not know bound to the tenant named, and those: their homes (bindLanes '?') and,
   * for a lane bound elsewhere or named after a plain item, its tenant's shard (moveLane 'check').
   * (A writer between these reads and the writes can still make the call refuse part way.)
   */
  async check(k0: LaneKeys, n: number, jobs: AdmitArgs[], list: string, places: number[]): Promise<void> {
    const first = new Map<string, { tenant: string; item: number; after: boolean }>();
    const plain = new Set<string>();
    for (const i of places) {
      const job = jobs[i];
      if (job.tenant === undefined) plain.add(job.group);
      else if (!first.has(job.group)) first.set(job.group, { tenant: job.tenant, item: i, after: plain.has(job.group) });
    }
    const homes = new Map<number, { group: string; tenant: string; item: number; after: boolean }[]>();
    for (const [group, f] of first) {
      if (!f.after && this.ctx.shards.bindings.tenantOf(k0.queue, group) === f.tenant) continue;
      const home = shardOf(group, n);
      const lanes = homes.get(home) ?? [];
      lanes.push({ group, ...f });
      homes.set(home, lanes);
    }
    const refusals: { item: number; group: string; tenant: string; current: string }[] = [];
    await Promise.all([...homes].map(async ([home, lanes]) => {
      const found = await this.ctx.scripts.bindCheck(k0.shardKeys(home), lanes.map((l) => ({ group: l.group, tenant: l.tenant, away: shardOf(l.tenant, n) !== home })));
      await Promise.all(lanes.map(async (l, i) => {
        const { verdict, current, own } = found[i];
        const refuse = (now: string) => refusals.push({ item: l.item, group: l.group, tenant: l.tenant, current: now });
        if (verdict === 'refused') return refuse(own);
        // NOTE: a plain item first puts a job into the lane: under the tenant it has then (in its
        // tenant's shard, while it holds a job or a setting there), else under none, at home.
        if (verdict === 'move' || (l.after && current === l.tenant)) {
          const here = await this.ctx.scripts.laneHere(k0.shardKeys(shardOf(current, n)), l.group);
          if (verdict === 'move' && here.held) return refuse(current);
          if (l.after && here.tenant !== l.tenant) return refuse(here.tenant);
          return;
        }
        if (l.after && own !== l.tenant) refuse(own);
      }));
    }));
    if (refusals.length === 0) return;
    const r = refusals.reduce((a, b) => (b.item < a.item ? b : a));
    const argument = tenantArg(list, r.item);
    throw new EchoMqError(tenantTaken(argument, r.group, r.tenant, r.current), { argument, queue: k0.queue });
  }

  /**
   * Binds each lane that `jobs` (those at `places`, default all) name a tenant for to that tenant,
   * unless this process knows it bound so: in the lane's home shard (one call per home, all at
   * once), its settings at home carried to the tenant's shard; a lane bound to another tenant moves
   * while it holds no job. Refuses, before any job of the call is written, a lane holding jobs
   * under another tenant or none (`list` names submitMany's items).
   */
  async bind(k0: LaneKeys, n: number, jobs: AdmitArgs[], list: string, places: number[] = jobs.map((_, i) => i)): Promise<void> {
    for (let round = 0; ; round++) {
      // NOTE: the bindings of a round are remembered only under the map they were made by; once it
      // has changed the caller routes again (by a new count, binding in the new homes).
      const gen = this.ctx.shards.genOf(k0, n);
      if (gen === undefined) return;
      const homes = new Map<number, BindLane[]>();
      const moves: { job: AdmitArgs; item: number; from: string }[] = [];
      const seen = new Set<string>();
      for (const i of places) {
        const job = jobs[i];
        if (job.tenant === undefined || seen.has(job.group)) continue;
        seen.add(job.group);
        const known = this.ctx.shards.bindings.tenantOf(k0.queue, job.group);
        if (known === job.tenant) continue;
        if (known !== undefined) {
          moves.push({ job, item: i, from: known });
          continue;
        }
        const home = shardOf(job.group, n);
        const lanes = homes.get(home) ?? [];
        lanes.push({ group: job.group, tenant: job.tenant, away: shardOf(job.tenant, n) !== home, item: i });
        homes.set(home, lanes);
      }
      if (homes.size === 0 && moves.length === 0) return;
      if (round >= MAX_RELEARN) {
        throw new EchoMqError(laneMoving(k0.queue, (moves[0]?.job.group ?? [...homes.values()][0][0].group), MAX_RELEARN), { code: 'UNAVAILABLE', queue: k0.queue });
      }
      for (const m of moves) await this.move(k0, n, gen, m.job, m.from, tenantArg(list, m.item));
      await Promise.all([...homes].map(([home, lanes]) => this.bindHome(k0, n, gen, home, lanes, list)));
      if (this.ctx.shards.genOf(k0, n) !== gen) return;
    }
  }

  /** Binds `lanes` in their home shard; a lane found bound to another tenant is remembered so, for the next round to move. */
  private async bindHome(k0: LaneKeys, n: number, gen: string, home: number, lanes: BindLane[], list: string): Promise<void> {
    let r = await this.ctx.scripts.bindLanes(k0.shardKeys(home), lanes);
    // NOTE: a lane with settings at home takes them to its tenant's shard (it holds no job at
    // home, or the script would have said so first), then the lanes are bound again.
    for (let moved = 0; 'settings' in r && moved < lanes.length; moved++) {
      const l = lanes[r.settings];
      await this.settings.lane(k0.shardKeys(home), k0.shardKeys(shardOf(l.tenant, n)), l.group);
      r = await this.ctx.scripts.bindLanes(k0.shardKeys(home), lanes);
    }
    if ('refused' in r) {
      const { item, current } = r.refused;
      const l = lanes[item];
      if (current === '') {
        const argument = tenantArg(list, l.item);
        throw new EchoMqError(tenantTaken(argument, l.group, l.tenant, ''), { argument, queue: k0.queue });
      }
      // NOTE: nothing was bound; the lane's binding is known now, and the next round moves it.
      this.ctx.shards.bindings.remember(k0.queue, l.group, current, gen);
      return;
    }
    if ('settings' in r) {
      const l = lanes[r.settings];
      const argument = tenantArg(list, l.item);
      throw new EchoMqError(laneSettingsLeftBehind(argument, l.group, l.tenant), { argument, queue: k0.queue });
    }
    for (const l of lanes) this.ctx.shards.bindings.remember(k0.queue, l.group, l.tenant, gen);
  }

  /**
   * Moves a lane bound to tenant `from` to the tenant `job` names, while it holds no job: recorded
   * gone in `from`'s shard, its settings carried, bound anew at home, taken in by the new tenant's
   * shard, and recorded gone again (a process that read the old binding meanwhile may have cleared
   * the record). Refuses (`argument`) a lane that holds jobs under `from`.
   */
  private async move(k0: LaneKeys, n: number, gen: string, job: AdmitArgs, from: string, argument: string): Promise<void> {
    const to = job.tenant!;
    const group = job.group;
    const old = k0.shardKeys(shardOf(from, n));
    const next = k0.shardKeys(shardOf(to, n));
    const home = shardOf(group, n);
    // NOTE: the binding is read first: the move writes it only if nobody wrote it meanwhile (a
    // submit naming `from` may clear the record of the move and fill the lane, see learn).
    const bound = await this.ctx.shards.binding(k0, group, n);
    if (bound.tenant !== from) return;
    if (!(await this.ctx.scripts.moveLane(old, group, from, 'out'))) {
      throw new EchoMqError(tenantTaken(argument, group, to, from), { argument, queue: k0.queue });
    }
    // NOTE: the settings stay in `old` too until the new binding stands: until then the lane is still
    // `from`'s there, and a submit sent there by its binding does not take it for one that let it go.
    const carried = old !== next ? await this.settings.copyLane(old, next, group) : undefined;
    const r = await this.ctx.scripts.bindLanes(k0.shardKeys(home), [{ group, tenant: to, away: shardOf(to, n) !== home, from, expect: bound.version }]);
    if (!('ok' in r) && carried) await this.dropCopy(k0, n, group, next);
    if ('changed' in r) {
      // NOTE: the binding was written meanwhile (the lane stays `from`'s, its settings with it); the
      // next round reads the binding again and decides.
      this.ctx.shards.bindings.forgetLane(k0.queue, group);
      return;
    }
    if ('refused' in r) {
      // NOTE: another process moved it meanwhile: the lane is where that binding says (and gone from
      // `from` all the same, so the record stays); the next round of bind decides again.
      if (r.refused.current !== '') this.ctx.shards.bindings.remember(k0.queue, group, r.refused.current, gen);
      return;
    }
    if (carried) await this.settings.clear(carried);
    await this.ctx.scripts.moveLane(next, group, to, 'in');
    await this.ctx.scripts.moveLane(old, group, from, 'out');
    this.ctx.shards.bindings.remember(k0.queue, group, to, gen);
  }
}

/** The argument naming the tenant of item `i` (`list`: submitMany's items; '' for a submit). */
export function tenantArg(list: string, i: number): string {
  return list === '' ? 'opts.tenant' : `${list}[${i}].opts.tenant`;
}
