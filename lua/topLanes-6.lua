--[[
  topLanes: the lanes with the most pending jobs, most first (read-only), from the lane index.

  KEYS[1] lanes    emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[2] gweight  emq:{q}:gweight
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] paused   emq:{q}:paused
  KEYS[6] ringset  emq:{q}:ringset

  ARGV[1] base   'emq:{q}:'
  ARGV[2] count  1..1,000

  Reply: flat, per lane: group, pending, active, weight, limit (-1 none), paused, inRing.
  Clock: none.
  Derived keys: each lane's pending set, from ARGV[1] pinned to KEYS[1].
  Cost: O(log lanes + count).
]]
local rcall = redis.call
--- @include "laneRow"

local base, count = ARGV[1], tonumber(ARGV[2])
if KEYS[1] ~= base .. 'lanes' or not count or count < 1 or count > 1000 then
  return redis.error_reply('ERR echomq: topLanes arguments do not match its keys')
end
local names = rcall('ZREVRANGE', KEYS[1], 0, count - 1)
local out = {}
for i = 1, #names do
  laneRow(base, names[i], out, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
end
return out
