--[[
  wclaim: the weighted claim. Apply due lane timers and promote due scheduled jobs, rotate the ring
  one step exactly as claim does, then serve K heads of the rotated lane under one lease, where
  K = min(weight, pending depth, limit - active, max, room left in the lane's rate window).
  A lane whose rate window is full leaves the ring until it has room (see claim).

  KEYS[1]  ring       emq:{q}:ring

  The queue's other keys (as claim's: ringset, paused, glimit, gactive, active, schedule, wake,
  gweight (integer >= 1 per group, 1 when unset), timers, grate, gpause, meta (field paused: the
  whole queue is paused, nothing is served; field limit: the queue's ceiling on its active jobs),
  dead, pending, lanes, stats) are derived from ARGV[1], each when first read (see laneKeysOf):
  a key passed costs a call about 1,200 server instructions, one derived about half that.

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] max        cap on K, 0 for none
  ARGV[4] promoteMax how many due scheduled jobs to promote first, at most

  Reply: { leaseUntil, dueIn, then per job: id, group, attempt, payload, submitted_at, last_error }
  (last_error is the pair { last_error, tc } for a job submitted with a trace context)
  dueIn as claim's: ms until the earliest scheduled job or lane timer falls due, -1 when none.
  While the queue is paused: { leaseUntil, -1 } and nothing is done.
  Clock: server TIME.
  Derived keys: as claim (lane named by the ring, its rate log, job rows), built from ARGV[1]
  pinned to KEYS[1].
  Cost: O(1) in the number of lanes, O(K log n) in the lane's depth.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "dueWork"
--- @include "weightedTurn"
--- @include "laneKeysOf"

-- NOTE: the keys every call reads are derived here, at once (a key read through laneKeysOf's
-- metatable costs several times a concatenation); the rarer ones when first read.
local k = laneKeysOf(ARGV[1], { ring = KEYS[1], ringset = ARGV[1] .. 'ringset', paused = ARGV[1] .. 'paused',
  glimit = ARGV[1] .. 'glimit', gactive = ARGV[1] .. 'gactive', active = ARGV[1] .. 'active', schedule = ARGV[1] .. 'schedule',
  timers = ARGV[1] .. 'timers', meta = ARGV[1] .. 'meta', lanes = ARGV[1] .. 'lanes', gweight = ARGV[1] .. 'gweight' })
local base = ARGV[1]
local leaseMs, cap, promoteMax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if k.ring ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not cap or cap < 0
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: wclaim arguments do not match its keys')
end

local now = nowMs()
local nextDue, timerAt, rated, halted, queueLimit = dueWork(base, now, promoteMax, k)
k.now = now
local leaseUntil = now + leaseMs
local out = { leaseUntil, -1 }
if halted then return out end
-- NOTE: the queue's ceiling (queueLimit) caps the turn at the room left under it.
k.queueLimited = queueLimit ~= nil
if queueLimit then
  local room = queueLimit - rcall('ZCARD', k.active)
  if room <= 0 then return out end
  if cap == 0 or cap > room then cap = room end
end
local _, reopenAt = weightedTurn(base, cap, now, leaseUntil, out, k, rated, true)
flushLeases(k.active, out)
if reopenAt >= 0 and (timerAt < 0 or reopenAt < timerAt) then timerAt = reopenAt end
if nextDue < 0 or (timerAt >= 0 and timerAt < nextDue) then nextDue = timerAt end
if nextDue >= 0 then out[2] = math.max(nextDue - now, 0) end
return out
