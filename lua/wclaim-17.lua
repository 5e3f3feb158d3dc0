--[[
  wclaim: the weighted claim. Apply due lane timers and promote due scheduled jobs, rotate the ring
  one step exactly as claim does, then serve K heads of the rotated lane under one lease, where
  K = min(weight, pending depth, limit - active, max, room left in the lane's rate window).
  A lane whose rate window is full leaves the ring until it has room (see claim).

  KEYS[1]  ring       emq:{q}:ring
  KEYS[2]  ringset    emq:{q}:ringset
  KEYS[3]  paused     emq:{q}:paused
  KEYS[4]  glimit     emq:{q}:glimit
  KEYS[5]  gactive    emq:{q}:gactive
  KEYS[6]  active     emq:{q}:active
  KEYS[7]  schedule   emq:{q}:schedule
  KEYS[8]  wake       emq:{q}:wake
  KEYS[9]  gweight    emq:{q}:gweight   (integer >= 1 per group, 1 when unset)
  KEYS[10] timers     emq:{q}:timers
  KEYS[11] grate      emq:{q}:grate
  KEYS[12] gpause     emq:{q}:gpause
  KEYS[13] meta       emq:{q}:meta      (field paused: the whole queue is paused, nothing is served;
                                         field limit: the queue's ceiling on its active jobs)
  KEYS[14] dead       emq:{q}:dead      (strays, as claim)
  KEYS[15] pending    emq:{q}:pending   (flat jobs in compat mode, as claim)
  KEYS[16] lanes      emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[17] stats      emq:{q}:stats     (totals: `dead` counts the strays dead-lettered here)

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

local k = {
  ring = KEYS[1], ringset = KEYS[2], paused = KEYS[3], glimit = KEYS[4], gactive = KEYS[5], active = KEYS[6],
  schedule = KEYS[7], wake = KEYS[8], gweight = KEYS[9], timers = KEYS[10], grate = KEYS[11], gpause = KEYS[12],
  meta = KEYS[13], dead = KEYS[14], pending = KEYS[15], lanes = KEYS[16], stats = KEYS[17],
}
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
flushLeases(k.active)
if reopenAt >= 0 and (timerAt < 0 or reopenAt < timerAt) then timerAt = reopenAt end
if nextDue < 0 or (timerAt >= 0 and timerAt < nextDue) then nextDue = timerAt end
if nextDue >= 0 then out[2] = math.max(nextDue - now, 0) end
return out
