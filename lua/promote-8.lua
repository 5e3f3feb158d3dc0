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
  KEYS[8] lanes     emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base  'emq:{q}:'
  ARGV[2] max   how many to move at most (>= 1)

  Reply: { moved, nextDue } (nextDue -1 when nothing is scheduled).
  Clock: server TIME.
  Derived keys: job rows and lanes, from ARGV[1] pinned to KEYS[2].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "promoteDue"

local base, max = ARGV[1], tonumber(ARGV[2])
if KEYS[2] ~= base .. 'ring' or not max or max < 1 then
  return redis.error_reply('ERR echomq: promote arguments do not match its keys')
end
local moved, nextDue = promoteDue(base, nowMs(), max, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
return { moved, nextDue }
