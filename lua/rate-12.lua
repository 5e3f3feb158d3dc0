--[[
  rate: set or clear a lane's rate ceiling: at most `max` claims of the lane in any window of
  `perMs` ms (server clock). The lane's claim log is kept across a change (the window goes on);
  clearing the rate deletes it. A lane whose window is full under the new setting is parked off
  the ring until it has room; one with room (or no rate any more) rejoins when serviceable.

  KEYS[1]  grate    emq:{q}:grate     (group -> "max perMs")
  KEYS[2]  timers   emq:{q}:timers    (r:<group> reopenings; '~rate' marks a queue with rates)
  KEYS[3]  ring     emq:{q}:ring
  KEYS[4]  ringset  emq:{q}:ringset
  KEYS[5]  paused   emq:{q}:paused
  KEYS[6]  glimit   emq:{q}:glimit
  KEYS[7]  gactive  emq:{q}:gactive
  KEYS[8]  wake     emq:{q}:wake
  KEYS[9]  lane     emq:{q}:g:<group>:pending
  KEYS[10] ratelog  emq:{q}:g:<group>:rate   (the lane's claim times, newest first)
  KEYS[11] lanes    emq:{q}:lanes     (lane index)
  KEYS[12] gweight  emq:{q}:gweight

  ARGV[1] base   'emq:{q}:'
  ARGV[2] group  lane name
  ARGV[3] max    integer 1..1000000, or '' to remove the rate
  ARGV[4] perMs  integer 1..86400000 ('' when removing)

  Reply: 1 when the lane joined the ring, -1 when it left (or was parked), 0 otherwise.
  Clock: server TIME (the window).
  Derived keys: the lane's tenant emq:{q}:g:<group>:tenant and, under one, the tenant's ring
  emq:{q}:t:<tenant>:ring and ring set (see laneRing), from ARGV[1], pinned to KEYS[3]; KEYS[9]
  and KEYS[10] are the lane's.
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "ringSync"
--- @include "unparkLane"
--- @include "rateWindow"
--- @include "indexSetting"
--- @include "grownHash"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group, rawMax, rawPer = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local max, perMs = tonumber(rawMax), tonumber(rawPer)
if KEYS[3] ~= base .. 'ring' or KEYS[9] ~= base .. 'g:' .. group .. ':pending'
   or KEYS[10] ~= base .. 'g:' .. group .. ':rate' then
  return redis.error_reply('ERR echomq: rate arguments do not match its keys')
end
if rawMax ~= '' and (not max or max < 1 or max > 1000000 or max % 1 ~= 0
   or not perMs or perMs < 1 or perMs > 86400000 or perMs % 1 ~= 0) then
  return redis.error_reply('ERR echomq: rate must be max 1..1000000 per perMs 1..86400000, or none')
end
unparkLane(base, group, KEYS[2], KEYS[3], KEYS[4])
if rawMax == '' then
  rcall('HDEL', KEYS[1], group)
  rcall('DEL', KEYS[10])
  if rcall('HLEN', KEYS[1]) == 0 then rcall('ZREM', KEYS[2], '~rate') end
  indexSetting(KEYS[11], group, false, KEYS[5], KEYS[6], KEYS[12], KEYS[7], KEYS[1])
  return ringSync(base, group, KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
end
local setting = string.format('%d %d', max, perMs)
-- NOTE: claims read a lane's rate (see grownHash).
if rcall('HSET', KEYS[1], group, setting) == 1 then grownHash(KEYS[1]) end
rcall('ZADD', KEYS[11], 'NX', '0', group)
rcall('ZADD', KEYS[2], '9e15', '~rate')
rcall('LTRIM', KEYS[10], '0', string.format('%d', max - 1))
local window = rateWindow(base, group, setting, nowMs())
if window.room(1) > 0 then
  return ringSync(base, group, KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
end
-- NOTE: compat mode: another writer may have put the lane on the ring without the ring set.
-- A lane under a tenant is parked in its tenant's ring set, and its tenant's entry leaves the
-- queue's ring with its last lane (see laneRing).
local ring, set, tenant = laneRing(base, group, KEYS[3], KEYS[4])
if compatMode() then
  rcall('LREM', ring, '0', group)
elseif rcall('SREM', set, group) == 1 then
  ringOps().remove(base, ring, group)
end
rcall('SADD', set, group)
if tenant then tenantOps().vacate(base, KEYS[3], KEYS[4], ring, tenant, false) end
window.park(KEYS[2], KEYS[8], window.reopenAt())
return -1
