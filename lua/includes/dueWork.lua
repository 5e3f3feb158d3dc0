--- @include "laneTimers"
--- @include "promoteDue"
--[[
  dueWork(base, now, promoteMax, k, present) -> nextDue (-1 when none), timerAt (-1 when none), rated
  What a claim does before it serves: promote due scheduled jobs and apply due lane timers (timed
  pause ends, rate-window reopenings); returns when the next scheduled job and the next lane timer
  fall due, and whether any lane has a rate (see laneTimers).
  NOTE: one read tells whether anything is scheduled or timed at all (the common case: nothing,
  and this read is all it costs); with one of the two sets present, an empty schedule means the
  timers are the one, and the other read is saved.
  `k` names the keys: schedule, timers, grate, gpause, paused, ring, ringset, glimit, gactive, wake,
  lanes (the lane index).
  `present` is that EXISTS reply when the caller has read it already (claim does, so that it builds
  the table `k` only when something is scheduled or timed).
]]
local function dueWork(base, now, promoteMax, k, present)
  present = present or rcall('EXISTS', k.schedule, k.timers)
  local moved, nextDue, timerAt, rated = 0, -1, -1, false
  if present > 0 then
    moved, nextDue = promoteDue(base, now, promoteMax, k.schedule, k.ring, k.ringset, k.paused,
      k.glimit, k.gactive, k.wake, k.lanes)
    if present == 2 or (moved == 0 and nextDue < 0) then
      timerAt, rated = laneTimers(base, now, k)
    end
  end
  return nextDue, timerAt, rated
end
