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

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] max        cap on K, 0 for none
  ARGV[4] promoteMax how many due scheduled jobs to promote first, at most

  Reply: { leaseUntil, dueIn, then per job: id, group, attempt, payload, submitted_at, last_error }
  dueIn as claim's: ms until the earliest scheduled job or lane timer falls due, -1 when none.
  Clock: server TIME.
  Derived keys: as claim (lane named by the ring, its rate log, job rows), built from ARGV[1]
  pinned to KEYS[1].
  Cost: O(1) in the number of lanes, O(K log n) in the lane's depth.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneTimers"
--- @include "promoteDue"
--- @include "laneState"
--- @include "serveLane"
--- @include "rotateRing"
--- @include "rateWindow"

local ringKey, ringSetKey, pausedKey, glimitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local gactiveKey, activeKey, scheduleKey, wakeKey, weightKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local timersKey, grateKey = KEYS[10], KEYS[11]
local base = ARGV[1]
local leaseMs, cap, promoteMax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if ringKey ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not cap or cap < 0
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: wclaim arguments do not match its keys')
end

local now = nowMs()
-- NOTE: one read tells whether anything is scheduled or timed at all (the common case: nothing,
-- and this read is all it costs); with one of the two sets present, an empty schedule means the
-- timers are the one, and the other read is saved.
local present = rcall('EXISTS', scheduleKey, timersKey)
local moved, nextDue, timerAt, rated = 0, -1, -1, false
if present > 0 then
  moved, nextDue = promoteDue(base, now, promoteMax, scheduleKey, ringKey, ringSetKey, pausedKey,
    glimitKey, gactiveKey, wakeKey)
  if present == 2 or (moved == 0 and nextDue < 0) then
    timerAt, rated = laneTimers(base, now, { timers = timersKey, grate = grateKey, gpause = KEYS[12],
      paused = pausedKey, ring = ringKey, ringset = ringSetKey, glimit = glimitKey, gactive = gactiveKey, wake = wakeKey })
  end
end
local leaseUntil = now + leaseMs
local out = { leaseUntil, -1 }
for healed = 0, 16 do
  local group = rotateRing(ringKey)
  if not group then break end
  local depth, active, limit, paused = laneState(base, group, pausedKey, glimitKey, gactiveKey)
  local k = tonumber(rcall('HGET', weightKey, group)) or 1
  if k > depth then k = depth end
  if limit and k > limit - active then k = limit - active end
  if cap > 0 and k > cap then k = cap end
  local setting = rated and rcall('HGET', grateKey, group)
  local window = setting and rateWindow(base, group, setting, now)
  local serviceable = k >= 1 and not paused
  if serviceable and window then k = window.room(k) end
  if serviceable and k == 0 then
    -- NOTE: back on the ring with its window still full (see claim): park it and rotate on.
    rcall('RPOP', ringKey)
    local at = window.reopenAt()
    window.park(timersKey, wakeKey, at)
    if timerAt < 0 or at < timerAt then timerAt = at end
  elseif serviceable then
    local n, left = serveLane(base, group, k, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, depth, active, limit)
    local reopen = window and window.record(n)
    if reopen then
      if left then rcall('SADD', ringSetKey, group) else rcall('RPOP', ringKey) end
      window.park(timersKey, wakeKey, reopen)
      if timerAt < 0 or reopen < timerAt then timerAt = reopen end
    end
    break
  else
    -- NOTE: unreachable while the ring invariant holds (see claim); heal and rotate on.
    rcall('RPOP', ringKey)
    rcall('SREM', ringSetKey, group)
  end
end
if nextDue < 0 or (timerAt >= 0 and timerAt < nextDue) then nextDue = timerAt end
if nextDue >= 0 then out[2] = math.max(nextDue - now, 0) end
return out
