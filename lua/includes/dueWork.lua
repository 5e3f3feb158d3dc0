--- @include "laneTimers"
--- @include "promoteDue"
--[[
  dueWork(base, now, promoteMax, k, present) -> nextDue (-1 when none), timerAt (-1 when none), rated, halted,
    queueLimit (field `limit` of emq:{q}:meta, see queueLimit; nil when none)
  What a claim does before it serves: promote due scheduled jobs and apply due lane timers (timed
  pause ends, rate-window reopenings); returns when the next scheduled job and the next lane timer
  fall due, and whether any lane has a rate (see laneTimers). `halted` is true while the whole
  queue is paused (field `paused` of emq:{q}:meta, set by pauseQueue or by the EchoMQ reference):
  the claim then serves nothing and nothing else is done.
  NOTE: one read (EXISTS of schedule, timers and meta) tells whether anything is scheduled or timed,
  or the queue has a meta hash, at all (the common case: none of them, and this read is all it
  costs); with one of the sets present, an empty schedule means another is, and laneTimers copes
  with an absent timers set.
  `k` names the keys: schedule, timers, meta, grate, gpause, paused, ring, ringset, glimit, gactive,
  wake, lanes, gweight (the lane index and weights, see laneTimers), dead, pending, stats (the last
  three for strays, see strayJob).
  `present` is that EXISTS reply when the caller has read it already (claim does, so that it builds
  the table `k` only when something is scheduled, timed or paused).
]]
local function dueWork(base, now, promoteMax, k, present)
  present = present or rcall('EXISTS', k.schedule, k.timers, k.meta)
  local moved, nextDue, timerAt, rated = 0, -1, -1, false
  if present == 0 then
    -- NOTE: no meta hash: `jobs` fairness and no tenant (see fairMode), known without a read.
    fairBy, fairMoving, anyTenant, ringPlain = false, false, false, true
    return nextDue, timerAt, rated, false
  end
  local meta = rcall('HMGET', k.meta, 'paused', 'limit', 'tenantSet', 'fair', 'fairMove', 'tenants', 'tmean')
  -- NOTE: the same read tells laneRing whether any tenant has a setting (spares it a HEXISTS),
  -- and fairMode the queue's fairness (and in `time` its mean time, see fairOps .estimate).
  tenantSettings = meta[3] ~= false
  fairBy, fairMoving, anyTenant = meta[4] or false, meta[5] ~= false, meta[6] ~= false
  fairTimeMean = tonumber(meta[7]) or false
  ringPlain = not fairBy and not fairMoving
  if meta[1] then return nextDue, timerAt, rated, true end
  -- NOTE: one key of the three exists and a field was read, so it is meta: nothing is scheduled or
  -- timed (a queue in `cost`/`time` fairness or with tenants, claiming as cheaply as one without).
  if present == 1 and (meta[2] or meta[3] or meta[4] or meta[5] or meta[6]) then
    return nextDue, timerAt, rated, false, tonumber(meta[2])
  end
  moved, nextDue = promoteDue(base, now, promoteMax, k.schedule, k.ring, k.ringset, k.paused,
    k.glimit, k.gactive, k.wake, k.lanes, k)
  if present >= 2 or (moved == 0 and nextDue < 0) then
    timerAt, rated = laneTimers(base, now, k)
  end
  return nextDue, timerAt, rated, false, tonumber(meta[2])
end
