--[[
  resume: put a paused lane back in service: it rejoins the ring when it has work and is under its
  ceiling. A timed pause's timer and the pause reason go with it.

  KEYS[1] paused   emq:{q}:paused
  KEYS[2] glimit   emq:{q}:glimit
  KEYS[3] gactive  emq:{q}:gactive
  KEYS[4] ring     emq:{q}:ring
  KEYS[5] ringset  emq:{q}:ringset
  KEYS[6] wake     emq:{q}:wake
  KEYS[7] lane     emq:{q}:g:<group>:pending
  KEYS[8] gpause   emq:{q}:gpause
  KEYS[9] timers   emq:{q}:timers
  KEYS[10] lanes   emq:{q}:lanes    (lane index)
  KEYS[11] gweight emq:{q}:gweight
  KEYS[12] grate   emq:{q}:grate

  ARGV[1] base   'emq:{q}:'
  ARGV[2] group  lane name

  Reply: 1 when the lane joined the ring, -1 when it left, 0 otherwise.
  Clock: none.  Derived keys: none.
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "ringSync"
--- @include "unparkLane"
--- @include "indexSetting"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group = ARGV[1], ARGV[2]
if KEYS[4] ~= base .. 'ring' or KEYS[7] ~= base .. 'g:' .. group .. ':pending' then
  return redis.error_reply('ERR echomq: resume arguments do not match its keys')
end
rcall('SREM', KEYS[1], group)
rcall('HDEL', KEYS[8], group)
rcall('ZREM', KEYS[9], 'p:' .. group)
unparkLane(base, group, KEYS[9], KEYS[4], KEYS[5])
indexSetting(KEYS[10], group, false, KEYS[1], KEYS[2], KEYS[11], KEYS[3], KEYS[12])
return ringSync(base, group, KEYS[4], KEYS[5], KEYS[1], KEYS[2], KEYS[3], KEYS[6])
