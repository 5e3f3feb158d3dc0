--[[
  limit: set or clear a lane's concurrency ceiling. Lowering it to or below the lane's active count
  takes the lane off the ring (it is parked until enough of its jobs finish); raising or clearing
  it puts a serviceable lane back.

  KEYS[1] glimit   emq:{q}:glimit
  KEYS[2] gactive  emq:{q}:gactive
  KEYS[3] paused   emq:{q}:paused
  KEYS[4] ring     emq:{q}:ring
  KEYS[5] ringset  emq:{q}:ringset
  KEYS[6] wake     emq:{q}:wake
  KEYS[7] lane     emq:{q}:g:<group>:pending
  KEYS[8] timers   emq:{q}:timers   (a lane parked by its rate is unparked first)
  KEYS[9] lanes    emq:{q}:lanes    (lane index)
  KEYS[10] gweight emq:{q}:gweight
  KEYS[11] grate   emq:{q}:grate

  ARGV[1] base   'emq:{q}:'
  ARGV[2] group  lane name
  ARGV[3] limit  integer >= 1, or '' to remove the ceiling

  Reply: 1 when the lane joined the ring, -1 when it left, 0 otherwise.
  Clock: none.  Derived keys: emq:{q}:gordered, from ARGV[1] (KEYS[7] is the lane ringSync reads).
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "ringSync"
--- @include "unparkLane"
--- @include "indexSetting"
--- @include "grownHash"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group, raw = ARGV[1], ARGV[2], ARGV[3]
local limit = tonumber(raw)
if KEYS[4] ~= base .. 'ring' or KEYS[7] ~= base .. 'g:' .. group .. ':pending'
   or (raw ~= '' and (not limit or limit < 1 or limit % 1 ~= 0)) then
  return redis.error_reply('ERR echomq: limit must be an integer >= 1 or none')
end
-- NOTE: an ordered lane keeps its ceiling of 1 (see includes/orderedLane); its own ceiling waits in
-- emq:{q}:gordered (derived from ARGV[1]) until the lane is no longer ordered.
local ordered = base .. 'gordered'
if rcall('HEXISTS', ordered, group) == 1 then
  rcall('HSET', ordered, group, raw)
  return 0
end
if raw == '' then
  rcall('HDEL', KEYS[1], group)
else
  -- NOTE: claims read a lane's ceiling (see grownHash).
  if rcall('HSET', KEYS[1], group, limit) == 1 then grownHash(KEYS[1]) end
end
unparkLane(base, group, KEYS[8], KEYS[4], KEYS[5])
indexSetting(KEYS[9], group, raw ~= '', KEYS[3], KEYS[1], KEYS[10], KEYS[2], KEYS[11])
return ringSync(base, group, KEYS[4], KEYS[5], KEYS[3], KEYS[1], KEYS[2], KEYS[6])
