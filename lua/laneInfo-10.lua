--[[
  laneInfo: read one lane's state in one consistent snapshot (read-only).

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] paused   emq:{q}:paused
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] gweight  emq:{q}:gweight
  KEYS[6] grate    emq:{q}:grate     (rate ceilings: group -> "max perMs")
  KEYS[7] gpause   emq:{q}:gpause    (pause details: group -> "pausedUntil|reason")
  KEYS[8] timers   emq:{q}:timers    (lane timers: p:<group>, r:<group>, scored by due time)
  KEYS[9] ring     emq:{q}:ring      (read for inRing in compat mode only)
  KEYS[10] lane    emq:{q}:g:<group>:pending

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] group  lane name

  Reply: one lane row (see includes/laneRow): group, pending, active, weight, limit, paused, inRing,
  rateMax, ratePerMs, pausedUntil, pauseReason, tenant, maxDepth, ordered.
  Clock: server TIME (whether a timed pause or a rate window is over).
  Derived keys: emq:{q}:gdepth (the lane's maxDepth, from ARGV[1]; KEYS[10] is the lane laneRow reads).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneRow"

local base, group = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'ringset' or KEYS[10] ~= base .. 'g:' .. group .. ':pending' then
  return redis.error_reply('ERR echomq: laneInfo arguments do not match its keys')
end
local keys = { ringset = KEYS[1], paused = KEYS[2], glimit = KEYS[3], gactive = KEYS[4], gweight = KEYS[5],
  grate = KEYS[6], gpause = KEYS[7], timers = KEYS[8], ring = KEYS[9] }
local out = {}
laneRow(base, group, nowMs(), keys, out)
return out
