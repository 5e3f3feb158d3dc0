--[[
  readStats: the queue's counters and sizes in one snapshot (read-only); O(1) in the number of lanes
  and jobs (the counters hash holds at most about 70 fields: totals and a minute of per-second
  completion buckets).

  KEYS[1] stats     emq:{q}:stats     (submitted, completed, retried, dead, reaped; its per-second buckets are
                    the keys emq:{q}:stats:<second>, derived from it)
  KEYS[2] schedule  emq:{q}:schedule
  KEYS[3] active    emq:{q}:active
  KEYS[4] dead      emq:{q}:dead
  KEYS[5] ring      emq:{q}:ring
  KEYS[6] paused    emq:{q}:paused
  KEYS[7] lanes     emq:{q}:lanes
  KEYS[8] meta      emq:{q}:meta      (field paused: the whole queue is paused, see pauseQueue)

  ARGV: none.

  Reply: { submitted, completed, retried, dead, reaped, scheduled, active, deadNow, lanes, ringLength,
  pausedLanes, completedLastMinute, paused (1 while the queue is paused, else 0) }.
  Clock: server TIME (which buckets are in the last minute).
  Derived keys: none.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "completedLastMinute"

local h = rcall('HMGET', KEYS[1], 'submitted', 'completed', 'retried', 'dead', 'reaped')
return {
  tonumber(h[1]) or 0, tonumber(h[2]) or 0, tonumber(h[3]) or 0, tonumber(h[4]) or 0, tonumber(h[5]) or 0,
  rcall('ZCARD', KEYS[2]), rcall('ZCARD', KEYS[3]), rcall('ZCARD', KEYS[4]),
  rcall('ZCARD', KEYS[7]), rcall('LLEN', KEYS[5]), rcall('SCARD', KEYS[6]),
  completedLastMinute(KEYS[1], nowMs()), rcall('HEXISTS', KEYS[8], 'paused'),
}
