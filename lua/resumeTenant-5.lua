--[[
  resumeTenant: put a paused tenant back in service: its entry rejoins the queue's ring when one of
  its lanes is serviceable and it is under its limit (a wake token goes out then).

  KEYS[1] ring     emq:{q}:ring
  KEYS[2] ringset  emq:{q}:ringset
  KEYS[3] wake     emq:{q}:wake
  KEYS[4] timers   emq:{q}:timers
  KEYS[5] info     emq:{q}:t:<tenant>:info

  ARGV[1] base    'emq:{q}:'
  ARGV[2] tenant  tenant name

  Reply: 1 when the tenant's entry joined the queue's ring, 0 otherwise.
  Clock: none.
  Derived keys: the tenant's ring emq:{q}:t:<tenant>:ring (its length), from ARGV[1] pinned to KEYS[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "laneRing"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, tenant = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'ring' or KEYS[5] ~= base .. 't:' .. tenant .. ':info' then
  return redis.error_reply('ERR echomq: resumeTenant arguments do not match its keys')
end
rcall('HDEL', KEYS[5], 'paused', 'until', 'reason')
rcall('ZREM', KEYS[4], 't:' .. tenant)
return tenantOps().sync(base, tenant, KEYS[1], KEYS[2], KEYS[3])
