import { MAX_SHARDS } from '../echomq.constants';
import { shardsInCompat, shardsNeedCluster, shardsNotEmpty } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { Cluster } from 'ioredis';
import { checkInt } from '../validation/validate';
import type { LaneContext } from './lane-context';

/**
 * @internal Spreads a queue over shards: the count is stored in shard 0 (`emq:{q}:shards`), and
 * every process reads it from there (see ShardCounts). Which shard holds what is LaneContext's
 * ShardRouter (shards/shard-router.ts); how claims visit the shards, shards/shard-visits.ts.
 */
export class LaneSharding {
  constructor(private readonly ctx: LaneContext) {}

  async shards(queue: string, n: unknown): Promise<void> {
    const k = this.ctx.keysOf(queue);
    const count = checkInt('n', n, 1, MAX_SHARDS, k.queue);
    if (this.ctx.options.compat === 'echomq') {
      throw new EchoMqError(shardsInCompat(), { code: 'MISCONFIGURED', argument: 'n', queue: k.queue });
    }
    if (count > 1 && !(this.ctx.client as Cluster).isCluster && !this.ctx.options.shardsOnOneServer) {
      throw new EchoMqError(shardsNeedCluster(count), { code: 'MISCONFIGURED', argument: 'n', queue: k.queue });
    }
    const before = Number(await this.ctx.read('shards', k, this.ctx.client.hget(k.shards, 'n'))) || 1;
    // NOTE: every other shard of the old and the new count is checked first, then shard 0 checks
    // itself and writes in one script; a submit racing the change can still land in between (the
    // caller changes the count of a queue nobody writes to, see the README).
    for (let i = 1; i < Math.max(before, count); i++) {
      const { empty } = await this.ctx.scripts.setShards(k.shardKeys(i), count, 'check');
      if (!empty) throw new EchoMqError(shardsNotEmpty(k.queue, i), { code: 'NOT_EMPTY', queue: k.queue });
    }
    const { empty } = await this.ctx.scripts.setShards(k, count, 'set');
    if (!empty) throw new EchoMqError(shardsNotEmpty(k.queue, 0), { code: 'NOT_EMPTY', queue: k.queue });
    this.ctx.shards.counts.set(k.queue, count);
  }

  /** How many shards the queue has, read from the server now. */
  async count(queue: string): Promise<number> {
    const k = this.ctx.keysOf(queue);
    if (this.ctx.options.compat === 'echomq') return 1;
    const n = Number(await this.ctx.read('shards', k, this.ctx.client.hget(k.shards, 'n'))) || 1;
    this.ctx.shards.counts.set(k.queue, n);
    return n;
  }
}
