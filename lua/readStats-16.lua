--[[
  readStats: the queue's counters and sizes in one snapshot, after applying the lane timers that are
  due (as a claim would, at most 32 per call, see laneTimers), so that `pausedLanes` and `ringLength`
  agree with what lane() reports even while no consumer claims. O(1) in the number of lanes and jobs
  otherwise (the counters hash holds at most about 70 fields: totals and a minute of per-second
  completion buckets).

  KEYS[1]  stats     emq:{q}:stats     (submitted, completed, retried, dead, reaped, cancelled; its per-second buckets are
                     the keys emq:{q}:stats:<second>, derived from it)
  KEYS[2]  schedule  emq:{q}:schedule
  KEYS[3]  active    emq:{q}:active
  KEYS[4]  dead      emq:{q}:dead
  KEYS[5]  ring      emq:{q}:ring
  KEYS[6]  paused    emq:{q}:paused
  KEYS[7]  lanes     emq:{q}:lanes
  KEYS[8]  meta      emq:{q}:meta      (field paused: the whole queue is paused, see pauseQueue; limit: queueLimit)
  KEYS[9]  timers    emq:{q}:timers    (lane timers: p:<group>, r:<group>, scored by due time)
  KEYS[10] grate     emq:{q}:grate     (the rest: what applying a lane timer reads and writes)
  KEYS[11] gpause    emq:{q}:gpause
  KEYS[12] ringset   emq:{q}:ringset
  KEYS[13] glimit    emq:{q}:glimit
  KEYS[14] gactive   emq:{q}:gactive
  KEYS[15] wake      emq:{q}:wake
  KEYS[16] gweight   emq:{q}:gweight

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[5]

  Reply: { submitted, completed, retried, dead, reaped, scheduled, active, deadNow, lanes, ringLength,
  pausedLanes, completedLastMinute, paused (1 while the queue is paused, else 0), cancelled, limit (the
  queue's ceiling, -1 when none), fairness ('jobs', 'cost' or 'time': meta field `fair`), oldestDone (1
  when the oldest head below is exact, 0 when its budget ran out: see oldestLanes), oldestLane ('' when
  no lane holds a pending job), oldestReady (ms, its head's ready time), now (ms), and the last head entry
  it checked, lastBound and lastMember ('' when none), for oldestLanes to go on from }. The oldest head
  comes from the lane index's head entries (see includes/headBack), which this may tidy (it writes).
  ringLength counts the ring list and its virtual-time set <ring>:vt (one of them is empty, see ringOps).
  Clock: server TIME (which lane timers are due, which buckets are in the last minute).
  Derived keys: the pending sets of the lanes whose timers are applied or heads checked, their heads' rows, and <ring>:vt, from ARGV[1] pinned to KEYS[5].
  NOTE: the timers are applied while the whole queue is paused too (a claim leaves them then), as
  lane() reports them applied; a lane that rejoins the ring then wakes nobody (see pushWake).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "completedLastMinute"
--- @include "laneTimers"
--- @include "oldestHeads"
--- @include "queueTotals"

local base = ARGV[1]
if not base or KEYS[5] ~= base .. 'ring' then
  return redis.error_reply('ERR echomq: readStats arguments do not match its keys')
end
local now = nowMs()
laneTimers(base, now, { timers = KEYS[9], grate = KEYS[10], gpause = KEYS[11], paused = KEYS[6], ring = KEYS[5],
  ringset = KEYS[12], glimit = KEYS[13], gactive = KEYS[14], wake = KEYS[15], lanes = KEYS[7], gweight = KEYS[16] })
-- NOTE: the oldest head, within a budget (see headBack): past it the caller goes on with oldestLanes.
local oldest, oldestDone, lastBound, lastMember = oldestHeads(KEYS[7], base, now, 1, 100)
local h = queueTotals(KEYS[1])
local meta = rcall('HMGET', KEYS[8], 'limit', 'fair')
return {
  h[1], h[2], h[3], h[4], h[5],
  rcall('ZCARD', KEYS[2]), rcall('ZCARD', KEYS[3]), rcall('ZCARD', KEYS[4]),
  rcall('ZCOUNT', KEYS[7], '-inf', DEPTH_BELOW_HEADS), rcall('LLEN', KEYS[5]) + rcall('ZCARD', KEYS[5] .. ':vt'), rcall('SCARD', KEYS[6]),
  completedLastMinute(KEYS[1], now), rcall('HEXISTS', KEYS[8], 'paused'), h[6],
  tonumber(meta[1]) or -1, meta[2] or 'jobs',
  oldestDone and 1 or 0, oldest[1] and oldest[1][1] or '', oldest[1] and string.format('%d', oldest[1][2]) or '',
  string.format('%d', now), lastBound and string.format('%d', lastBound) or '', lastMember or '',
}
