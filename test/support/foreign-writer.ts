import type IORedis from 'ioredis';
import { LaneKeys } from '../../lib/redis/lane-keys';

/**
 * A second writer on our queues that behaves as the EchoMQ reference's scripts do (read from its
 * public source, rewritten here): it keeps no ring set, puts a lane on the ring only after an LPOS
 * check, takes it off with a bare LREM, caps its wake list at 64 tokens, keeps group-less ("flat")
 * jobs in `emq:{q}:pending`, and checks the queue-wide pause (meta field `paused`) on the client
 * before it claims. Each operation is one script, atomic as the reference's are.
 */
export class ForeignWriter {
  constructor(private readonly client: IORedis, private readonly prefix = 'emq') {}

  private keys(queue: string): LaneKeys {
    return new LaneKeys(this.prefix, queue);
  }

  /** Grouped admission: row, lane entry, and the lane onto the ring when serviceable and not on it. */
  async enqueue(queue: string, group: string, id: string, payload: string): Promise<boolean> {
    const k = this.keys(queue);
    const r = await this.client.eval(`
      local base, id, payload, g = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
      local row = base .. 'job:' .. id
      if redis.call('EXISTS', row) == 1 then return 0 end
      redis.call('HSET', row, 'state', 'pending', 'attempts', '0', 'payload', payload, 'group', g)
      redis.call('ZADD', base .. 'g:' .. g .. ':pending', 0, id)
      if redis.call('SISMEMBER', KEYS[2], g) == 0 then
        local cap = redis.call('HGET', KEYS[3], g)
        local busy = tonumber(redis.call('HGET', KEYS[4], g) or '0')
        if (cap == false or busy < tonumber(cap)) and redis.call('LPOS', KEYS[1], g) == false then
          redis.call('RPUSH', KEYS[1], g)
          redis.call('LPUSH', KEYS[5], '1')
          redis.call('LTRIM', KEYS[5], 0, 63)
        end
      end
      return 1`, 5, k.ring, k.paused, k.limit, k.gactive, k.wake, k.base, id, payload, group);
    return r === 1;
  }

  /** Flat admission: a row without a group, in the flat pending set. */
  async enqueueFlat(queue: string, id: string, payload: string): Promise<void> {
    const k = this.keys(queue);
    await this.client.multi().hset(k.job(id), 'state', 'pending', 'attempts', '0', 'payload', payload).zadd(k.flatPending, 0, id).exec();
  }

  /** Flat scheduled admission, due at `dueAtMs`. */
  async scheduleFlat(queue: string, id: string, payload: string, dueAtMs: number): Promise<void> {
    const k = this.keys(queue);
    await this.client.multi().hset(k.job(id), 'state', 'scheduled', 'attempts', '0', 'payload', payload).zadd(k.schedule, dueAtMs, id).exec();
  }

  /** Whether the queue-wide pause is set (the reference checks it before every claim). */
  async queuePaused(queue: string): Promise<boolean> {
    return (await this.client.hget(this.keys(queue).meta, 'paused')) !== null;
  }

  /**
   * The rotating claim: LMOVE the ring one step, pop the head of that lane, lease it; the lane
   * leaves the ring by LREM when it is now empty or at its ceiling. It does not look at the lane's
   * pause or ceiling before it serves: the ring is trusted. Null when nothing was served.
   */
  async claim(queue: string, leaseMs = 30_000): Promise<{ id: string; payload: string; attempt: number; group: string } | null> {
    if (await this.queuePaused(queue)) return null;
    const k = this.keys(queue);
    const r = (await this.client.eval(`
      local base = ARGV[1]
      local g = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
      if g == false then return {} end
      local lane = base .. 'g:' .. g .. ':pending'
      local head = redis.call('ZPOPMIN', lane)
      if #head == 0 then
        redis.call('LREM', KEYS[1], 0, g)
        return {}
      end
      local id = head[1]
      local row = base .. 'job:' .. id
      local attempt = redis.call('HINCRBY', row, 'attempts', 1)
      redis.call('HSET', row, 'state', 'active')
      local t = redis.call('TIME')
      redis.call('ZADD', KEYS[2], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[2]), id)
      local busy = redis.call('HINCRBY', base .. 'gactive', g, 1)
      local cap = redis.call('HGET', base .. 'glimit', g)
      if (cap ~= false and busy >= tonumber(cap)) or redis.call('ZCARD', lane) == 0 then
        redis.call('LREM', KEYS[1], 0, g)
      end
      return { id, redis.call('HGET', row, 'payload'), attempt, g }`, 2, k.ring, k.active, k.base, leaseMs)) as unknown[];
    if (r.length === 0) return null;
    return { id: r[0] as string, payload: r[1] as string, attempt: Number(r[2]), group: r[3] as string };
  }

  /** The flat claim: the head of the flat pending set, leased. */
  async claimFlat(queue: string, leaseMs = 30_000): Promise<{ id: string; attempt: number } | null> {
    if (await this.queuePaused(queue)) return null;
    const k = this.keys(queue);
    const r = (await this.client.eval(`
      local head = redis.call('ZPOPMIN', KEYS[1])
      if #head == 0 then return {} end
      local row = ARGV[1] .. 'job:' .. head[1]
      local attempt = redis.call('HINCRBY', row, 'attempts', 1)
      redis.call('HSET', row, 'state', 'active')
      local t = redis.call('TIME')
      redis.call('ZADD', KEYS[2], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[2]), head[1])
      return { head[1], attempt }`, 2, k.flatPending, k.active, k.base, leaseMs)) as unknown[];
    if (r.length === 0) return null;
    return { id: r[0] as string, attempt: Number(r[1]) };
  }

  /**
   * Completion, fenced by the attempt: lease and row go, the lane's active count drops, and the
   * lane goes back on the ring (after an LPOS check) when it has work, is unpaused and under its
   * ceiling. False for a stale token. One difference: this completes only a job that is still
   * active; the reference checks the attempt alone, so a holder whose expired lease was reaped into
   * the dead set (same attempt) would delete a dead job's row and leave its id in the dead set.
   */
  async complete(queue: string, id: string, attempt: number): Promise<boolean> {
    const k = this.keys(queue);
    const r = await this.client.eval(`
      local base, id = ARGV[1], ARGV[2]
      local row = base .. 'job:' .. id
      local state = redis.call('HMGET', row, 'attempts', 'state')
      if state[1] ~= ARGV[3] or state[2] ~= 'active' then return 0 end
      local g = redis.call('HGET', row, 'group')
      local held = redis.call('ZREM', KEYS[1], id)
      if g ~= false and held == 1 then
        local busy = redis.call('HINCRBY', base .. 'gactive', g, -1)
        if busy <= 0 then redis.call('HDEL', base .. 'gactive', g) end
        local lane = base .. 'g:' .. g .. ':pending'
        if redis.call('SISMEMBER', base .. 'paused', g) == 0 and redis.call('ZCARD', lane) > 0 then
          local cap = redis.call('HGET', base .. 'glimit', g)
          if (cap == false or busy < tonumber(cap)) and redis.call('LPOS', KEYS[2], g) == false then
            redis.call('RPUSH', KEYS[2], g)
            redis.call('LPUSH', base .. 'wake', '1')
            redis.call('LTRIM', base .. 'wake', 0, 63)
          end
        end
      end
      redis.call('DEL', row)
      return 1`, 2, k.active, k.ring, k.base, id, attempt);
    return r === 1;
  }

  /** Lane pause: into the paused set, off the ring by LREM. */
  async pause(queue: string, group: string): Promise<void> {
    const k = this.keys(queue);
    await this.client.multi().sadd(k.paused, group).lrem(k.ring, 0, group).exec();
  }

  /** Lane resume: out of the paused set, back on the ring (LPOS-checked) when it has work and room. */
  async resume(queue: string, group: string): Promise<void> {
    const k = this.keys(queue);
    await this.client.eval(`
      redis.call('SREM', KEYS[1], ARGV[1])
      if redis.call('ZCARD', KEYS[5]) > 0 then
        local cap = redis.call('HGET', KEYS[3], ARGV[1])
        local busy = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
        if (cap == false or busy < tonumber(cap)) and redis.call('LPOS', KEYS[2], ARGV[1]) == false then
          redis.call('RPUSH', KEYS[2], ARGV[1])
          redis.call('LPUSH', KEYS[6], '1')
          redis.call('LTRIM', KEYS[6], 0, 63)
        end
      end
      return 1`, 6, k.paused, k.ring, k.limit, k.gactive, k.lane(group), k.wake, group);
  }

  /** Lane ceiling: set; off the ring by LREM at or over it, else back on (LPOS-checked) when serviceable. */
  async limit(queue: string, group: string, limit: number): Promise<void> {
    const k = this.keys(queue);
    await this.client.eval(`
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
      local busy = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
      if busy >= tonumber(ARGV[2]) then
        redis.call('LREM', KEYS[3], 0, ARGV[1])
      elseif redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 0 and redis.call('ZCARD', KEYS[5]) > 0
             and redis.call('LPOS', KEYS[3], ARGV[1]) == false then
        redis.call('RPUSH', KEYS[3], ARGV[1])
        redis.call('LPUSH', KEYS[6], '1')
        redis.call('LTRIM', KEYS[6], 0, 63)
      end
      return 1`, 6, k.limit, k.gactive, k.ring, k.paused, k.lane(group), k.wake, group, limit);
  }

  /** Queue-wide pause and resume: the meta field `paused`. */
  async pauseQueue(queue: string): Promise<void> {
    await this.client.hset(this.keys(queue).meta, 'paused', '1');
  }

  async resumeQueue(queue: string): Promise<void> {
    await this.client.hdel(this.keys(queue).meta, 'paused');
  }
}
