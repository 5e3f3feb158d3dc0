--[[
  pauseTenant: take every lane of a tenant out of service: the tenant's entry leaves the queue's
  ring (its lanes keep their places on its own ring, and their pending jobs stay). With forMs the
  tenant resumes by itself at now + forMs (server clock): a timer t:<tenant> that the first claim
  after that time applies, exactly as resumeTenant would. A reason is kept for tenant().

  KEYS[1] ring     emq:{q}:ring
  KEYS[2] ringset  emq:{q}:ringset
  KEYS[3] wake     emq:{q}:wake
  KEYS[4] timers   emq:{q}:timers
  KEYS[5] info     emq:{q}:t:<tenant>:info   (fields paused, until, reason)

  ARGV[1] base    'emq:{q}:'
  ARGV[2] tenant  tenant name
  ARGV[3] forMs   integer 1..315360000000 (ten years), or '' for a pause until resumeTenant
  ARGV[4] reason  at most 200 bytes, '' for none

  Reply: -1 when the tenant's entry left the queue's ring, 0 otherwise.
  Clock: server TIME (the end of a timed pause).
  Derived keys: the tenant's ring emq:{q}:t:<tenant>:ring (its length) and emq:{q}:meta (field
  tenantSet, see laneRing), from ARGV[1] pinned to KEYS[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneRing"
--- @include "wakeBefore"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, tenant, rawFor, reason = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local forMs = tonumber(rawFor)
if KEYS[1] ~= base .. 'ring' or KEYS[5] ~= base .. 't:' .. tenant .. ':info' or not reason or #reason > 200
   or (rawFor ~= '' and (not forMs or forMs < 1 or forMs > 315360000000 or forMs % 1 ~= 0)) then
  return redis.error_reply('ERR echomq: pauseTenant arguments do not match its keys')
end
tenantOps().marked(base)
rcall('HSET', KEYS[5], 'paused', '1')
if forMs then
  local untilMs = nowMs() + forMs
  rcall('HSET', KEYS[5], 'until', string.format('%d', untilMs))
  wakeBefore(KEYS[4], untilMs, KEYS[3])
  rcall('ZADD', KEYS[4], string.format('%d', untilMs), 't:' .. tenant)
else
  rcall('HDEL', KEYS[5], 'until')
  rcall('ZREM', KEYS[4], 't:' .. tenant)
end
if reason ~= '' then rcall('HSET', KEYS[5], 'reason', reason) else rcall('HDEL', KEYS[5], 'reason') end
return tenantOps().sync(base, tenant, KEYS[1], KEYS[2], KEYS[3])
