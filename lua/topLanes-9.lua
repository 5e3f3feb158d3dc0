--[[
  topLanes: the lanes with the most pending jobs, most first (read-only), from the lane index.

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] paused   emq:{q}:paused
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] gweight  emq:{q}:gweight
  KEYS[6] grate    emq:{q}:grate
  KEYS[7] gpause   emq:{q}:gpause
  KEYS[8] timers   emq:{q}:timers
  KEYS[9] lanes    emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base   'emq:{q}:'
  ARGV[2] count  1..1,000

  Reply: flat, one lane row per lane (see includes/laneRow), most pending first.
  Clock: server TIME (as laneRow).
  Derived keys: each lane's pending set, from ARGV[1] pinned to KEYS[9].
  Cost: O(log lanes + count).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneRow"

local base, count = ARGV[1], tonumber(ARGV[2])
if KEYS[9] ~= base .. 'lanes' or not count or count < 1 or count > 1000 then
  return redis.error_reply('ERR echomq: topLanes arguments do not match its keys')
end
local keys = { ringset = KEYS[1], paused = KEYS[2], glimit = KEYS[3], gactive = KEYS[4], gweight = KEYS[5],
  grate = KEYS[6], gpause = KEYS[7], timers = KEYS[8] }
local now = nowMs()
local names = rcall('ZREVRANGE', KEYS[9], 0, count - 1)
local out = {}
for i = 1, #names do laneRow(base, names[i], now, keys, out) end
return out
