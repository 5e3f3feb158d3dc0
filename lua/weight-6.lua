--[[
  weight: set a lane's throughput share, the number of heads wclaim serves it per turn. A weight
  never parks a lane, so the ring is not touched. 1 is the default, so setting 1 removes the field
  (the lane then no longer counts as having a setting in lanes(), and leaves the lane index when it
  has no work and no other setting).

  KEYS[1] gweight  emq:{q}:gweight
  KEYS[2] lanes    emq:{q}:lanes     (lane index)
  KEYS[3] paused   emq:{q}:paused
  KEYS[4] glimit   emq:{q}:glimit
  KEYS[5] gactive  emq:{q}:gactive
  KEYS[6] grate    emq:{q}:grate

  ARGV[1] group   lane name
  ARGV[2] weight  integer >= 1

  Reply: 1.
  Clock: none.  Derived keys: none.
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "indexSetting"
--- @include "grownHash"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local group, weight = ARGV[1], tonumber(ARGV[2])
if not weight or weight < 1 or weight % 1 ~= 0 then
  return redis.error_reply('ERR echomq: weight must be an integer >= 1')
end
if weight == 1 then
  rcall('HDEL', KEYS[1], group)
else
  -- NOTE: claims read a lane's weight (see grownHash).
  if rcall('HSET', KEYS[1], group, weight) == 1 then grownHash(KEYS[1]) end
end
indexSetting(KEYS[2], group, weight ~= 1, KEYS[3], KEYS[4], KEYS[1], KEYS[5], KEYS[6])
return 1
