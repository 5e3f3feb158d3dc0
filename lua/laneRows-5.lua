--[[
  laneRows: the LaneInfo rows of named lanes (read-only); scanLanes pages through the lane index
  with ZSCAN and reads each page's rows here.

  KEYS[1] gweight  emq:{q}:gweight
  KEYS[2] glimit   emq:{q}:glimit
  KEYS[3] gactive  emq:{q}:gactive
  KEYS[4] paused   emq:{q}:paused
  KEYS[5] ringset  emq:{q}:ringset

  ARGV[1] base     'emq:{q}:'
  ARGV[2..] group names, at most 1,000

  Reply: flat, per lane: group, pending, active, weight, limit (-1 none), paused, inRing.
  Clock: none.
  Derived keys: each lane's pending set, from ARGV[1] pinned to KEYS[5].
  Cost: O(number of names).
]]
local rcall = redis.call
--- @include "laneRow"

local base = ARGV[1]
if KEYS[5] ~= base .. 'ringset' or #ARGV > 1001 then
  return redis.error_reply('ERR echomq: laneRows arguments do not match its keys')
end
local out = {}
for i = 2, #ARGV do
  laneRow(base, ARGV[i], out, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
end
return out
