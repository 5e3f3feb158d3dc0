--[[
  ordered: make a lane keep submit order, or let it go back to serving as a plain lane (see
  includes/orderedLane). On: the lane's own ceiling moves to emq:{q}:gordered and its ceiling in
  glimit becomes 1, so a lane with a job active leaves the ring until that job ends. Off: the
  lane's own ceiling comes back (or none) and a serviceable lane rejoins the ring; a retry the lane
  was held for stays scheduled and is served when due, in mint order, and holds the lane again if it
  is ordered again before then. Setting what is already set changes nothing.

  KEYS[1]  glimit   emq:{q}:glimit
  KEYS[2]  gactive  emq:{q}:gactive
  KEYS[3]  paused   emq:{q}:paused
  KEYS[4]  ring     emq:{q}:ring
  KEYS[5]  ringset  emq:{q}:ringset
  KEYS[6]  wake     emq:{q}:wake
  KEYS[7]  lane     emq:{q}:g:<group>:pending
  KEYS[8]  lanes    emq:{q}:lanes    (lane index: an ordered lane is a lane with a setting)
  KEYS[9]  gweight  emq:{q}:gweight
  KEYS[10] grate    emq:{q}:grate
  KEYS[11] gordered emq:{q}:gordered (group -> the lane's own ceiling, '' for none)

  ARGV[1] base   'emq:{q}:'
  ARGV[2] group  lane name
  ARGV[3] on     '1' or '0'

  Reply: 1 when the lane joined the ring, -1 when it left, 0 otherwise.
  Clock: none.  Derived keys: the held retry's row emq:{q}:job:<id> (see orderedLane) (KEYS[7] is the lane ringSync reads).
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "ringSync"
--- @include "indexSetting"
--- @include "orderedLane"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group, on = ARGV[1], ARGV[2], ARGV[3]
if KEYS[4] ~= base .. 'ring' or KEYS[7] ~= base .. 'g:' .. group .. ':pending'
   or KEYS[11] ~= base .. 'gordered' or (on ~= '1' and on ~= '0') then
  return redis.error_reply('ERR echomq: ordered arguments do not match its keys')
end
local own = rcall('HGET', KEYS[11], group)
if on == '1' then
  if own then return 0 end
  rcall('HSET', KEYS[11], group, rcall('HGET', KEYS[1], group) or '')
  -- NOTE: a retry the lane was held for before an ordered(false) holds it again (see orderedLane).
  rcall('HSET', KEYS[1], group, orderedLane().ceiling(base, group))
  indexSetting(KEYS[8], group, true, KEYS[3], KEYS[1], KEYS[9], KEYS[2], KEYS[10])
else
  if not own then return 0 end
  rcall('HDEL', KEYS[11], group)
  if own == '' then rcall('HDEL', KEYS[1], group) else rcall('HSET', KEYS[1], group, own) end
  indexSetting(KEYS[8], group, own ~= '', KEYS[3], KEYS[1], KEYS[9], KEYS[2], KEYS[10])
end
return ringSync(base, group, KEYS[4], KEYS[5], KEYS[3], KEYS[1], KEYS[2], KEYS[6])
