import { PAUSE_REASON_MAX_BYTES } from '../echomq.constants';
import { invalidArgument, tenantsInCompat } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { PauseOptions, TenantInfo, TenantPending } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import { TenantScripts } from '../scripts/tenant-scripts';
import { checkInt, checkName, checkOptInt, checkOptions } from '../validation/validate';
import { mergeTop } from '../shards/merge-top';
import { SettingsMove } from '../shards/settings-move';
import type { LaneContext } from './lane-context';

/** @internal The longest timed pause of a tenant: ten years, as a lane's. */
const MAX_PAUSE_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * @internal A tenant's settings (weight, ceiling, pause) and its state, in the tenant's shard on a
 * sharded queue (a tenant and all its lanes live in one shard, see ShardRouter.ofTenant).
 */
export class LaneTenants {
  private readonly scripts: TenantScripts;

  constructor(private readonly ctx: LaneContext) {
    this.scripts = new TenantScripts(ctx.scripts);
  }

  async weight(queue: string, tenant: unknown, weight: unknown): Promise<void> {
    const [k, t] = this.target('tenantWeight', queue, tenant);
    const w = checkInt('weight', weight, 1, 1_000_000, k.queue);
    await this.onTenant(k, t, (s) => this.scripts.weight(s, t, w));
  }

  async limit(queue: string, tenant: unknown, limit: unknown): Promise<void> {
    const [k, t] = this.target('tenantLimit', queue, tenant);
    const ceiling = limit === null ? null : checkInt('limit', limit, 1, 1_000_000, k.queue);
    await this.onTenant(k, t, (s) => this.scripts.limit(s, t, ceiling));
  }

  async pause(queue: string, tenant: unknown, opts: unknown): Promise<void> {
    const [k, t] = this.target('pauseTenant', queue, tenant);
    const o = checkOptions<PauseOptions>('opts', opts, k.queue);
    const forMs = checkOptInt('opts.forMs', o.forMs, 1, MAX_PAUSE_MS, k.queue) ?? null;
    const reason = o.reason === undefined ? '' : o.reason;
    if (typeof reason !== 'string' || Buffer.byteLength(reason, 'utf8') > PAUSE_REASON_MAX_BYTES) {
      throw new EchoMqError(invalidArgument('opts.reason', `must be a string of at most ${PAUSE_REASON_MAX_BYTES} bytes`, reason),
        { argument: 'opts.reason', queue: k.queue });
    }
    await this.onTenant(k, t, (s) => this.scripts.pause(s, t, forMs, reason));
  }

  async resume(queue: string, tenant: unknown): Promise<void> {
    const [k, t] = this.target('resumeTenant', queue, tenant);
    await this.onTenant(k, t, (s) => this.scripts.resume(s, t));
  }

  /** A setting of tenant `t`, where it lives (see ShardRouter.onTenant); a copy a replaced map left elsewhere is cleared. */
  private onTenant<T>(k: LaneKeys, t: string, write: (shard: LaneKeys) => Promise<T>): Promise<T> {
    return this.ctx.shards.onTenant(k, t, write, (from) => new SettingsMove(this.ctx).clearTenant(from, t));
  }

  /** The queue's ceiling over all lanes and tenants: allowed on a compat module too. */
  async queueLimit(queue: string, limit: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const ceiling = limit === null ? null : checkInt('limit', limit, 1, 1_000_000, k.queue);
    // NOTE: a queue-wide ceiling would have to count every shard's leases in each claim.
    await this.ctx.shards.refuse(k, 'queueLimit');
    await this.scripts.queueLimit(k, ceiling);
  }

  /** Read by the metrics: allowed on a compat module too (a queue there has no tenants: []). */
  async top(queue: string, count: unknown): Promise<TenantPending[]> {
    const k = this.ctx.keysOf(queue);
    const n = checkInt('count', count, 1, 1_000, k.queue);
    // NOTE: a tenant lives in one shard, so each shard's top n, merged, holds the queue's.
    const tops = await Promise.all((await this.ctx.shards.all(k)).map((s) => this.scripts.top(s, n)));
    return mergeTop(tops, n, (t) => t.pending, (t) => t.tenant);
  }

  async info(queue: string, tenant: unknown): Promise<TenantInfo> {
    const [k, t] = this.target('tenant', queue, tenant);
    return this.scripts.info(await this.ctx.shards.ofTenant(k, t), t);
  }

  /** The queue's keys and the checked tenant name; every tenant method rejects on a compat module. */
  private target(operation: string, queue: string, tenant: unknown): [LaneKeys, string] {
    const k = this.ctx.keysOf(queue);
    if (this.ctx.options.compat === 'echomq') {
      throw new EchoMqError(tenantsInCompat(operation), { code: 'MISCONFIGURED', queue: k.queue });
    }
    return [k, checkName('tenant', tenant, k.queue)];
  }
}
