--[[
  promote: move scheduled jobs (delayed submits, retry backoffs) whose due time has come into their
  own lanes, bounded per call. claim and wclaim run the same step first.

  KEYS[1] schedule  emq:{q}:schedule
  KEYS[2] ring      emq:{q}:ring
  KEYS[3] ringset   emq:{q}:ringset
  KEYS[4] paused    emq:{q}:paused
  KEYS[5] glimit    emq:{q}:glimit
  KEYS[6] gactive   emq:{q}:gactive
  KEYS[7] wake      emq:{q}:wake
  KEYS[8] dead      emq:{q}:dead      (a due id without a row or group goes here, see strayJob)
  KEYS[9] pending   emq:{q}:pending   (the flat pending set: flat jobs in compat mode)
  KEYS[10] lanes    emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[11] stats    emq:{q}:stats     (totals: `dead` counts the strays dead-lettered here)

  ARGV[1] base  'emq:{q}:'
  ARGV[2] max   how many to move at most (>= 1)

  Reply: { moved, nextDue } (nextDue -1 when nothing is scheduled); moved counts strays too.
  Clock: server TIME.
  Derived keys: job rows and lanes and emq:{q}:gdelayed (see laneDepth), from ARGV[1] pinned to KEYS[2].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "promoteDue"

local base, max = ARGV[1], tonumber(ARGV[2])
if KEYS[2] ~= base .. 'ring' or not max or max < 1 then
  return redis.error_reply('ERR echomq: promote arguments do not match its keys')
end
local moved, nextDue = promoteDue(base, nowMs(), max, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7],
  KEYS[10], { dead = KEYS[8], pending = KEYS[9], stats = KEYS[11] })
return { moved, nextDue }
