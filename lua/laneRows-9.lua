--[[
  laneRows: the LaneInfo rows of named lanes (read-only); scanLanes pages through the lane index
  with ZSCAN and reads each page's rows here.

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] paused   emq:{q}:paused
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] gweight  emq:{q}:gweight
  KEYS[6] grate    emq:{q}:grate
  KEYS[7] gpause   emq:{q}:gpause
  KEYS[8] timers   emq:{q}:timers
  KEYS[9] ring     emq:{q}:ring      (read for inRing in compat mode only)

  ARGV[1] base     'emq:{q}:'
  ARGV[2..] group names, at most 1,000

  Reply: flat, one lane row per name, in order (see includes/laneRow).
  Clock: server TIME (as laneRow).
  Derived keys: each lane's pending set, emq:{q}:gdepth (maxDepth), from ARGV[1] pinned to KEYS[1].
  Cost: O(number of names).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneRow"

local base = ARGV[1]
if KEYS[1] ~= base .. 'ringset' or #ARGV > 1001 then
  return redis.error_reply('ERR echomq: laneRows arguments do not match its keys')
end
local keys = { ringset = KEYS[1], paused = KEYS[2], glimit = KEYS[3], gactive = KEYS[4], gweight = KEYS[5],
  grate = KEYS[6], gpause = KEYS[7], timers = KEYS[8], ring = KEYS[9] }
local now = nowMs()
local out = {}
for i = 2, #ARGV do laneRow(base, ARGV[i], now, keys, out) end
return out
