--- @include "laneState"
--- @include "serveLane"
--- @include "laneRing"
--- @include "rateWindow"
--[[
  weightedTurn(base, cap, now, leaseUntil, out, k, rated, weighted) -> served (nil when no lane is serviceable), reopenAt
  One weighted turn, the whole of what one wclaim serves: rotate the ring one step exactly as claim
  does (at both levels, see laneRing), then serve K = min(weight, pending depth, limit - active, cap, room left in the lane's rate
  window) heads of the rotated lane under one lease (cap 0: no cap). A lane found with its rate
  window full is parked (off the ring, kept in the ring set, with a timer) and the ring rotates on;
  a lane whose window the turn fills is parked the same way. `rated` tells whether any lane of the
  queue has a rate (see laneTimers); `weighted` false tells that no lane has a weight (the gweight
  hash is absent), so every weight is 1 and is not read. Appends the jobs to `out` (see serveLane). reopenAt is the
  earliest time a lane parked by this turn has room again, -1 when none.
  wclaim takes one turn and wclaimMany takes them in a loop, so what a turn serves is decided here.
  `k` names the keys: ring, ringset, paused, glimit, gactive, active, gweight, timers, grate, wake,
  dead (a lane entry without a row goes there, see serveLane).
]]
local function weightedTurn(base, cap, now, leaseUntil, out, k, rated, weighted)
  local reopenAt = -1
  for healed = 0, 16 do
    local group, ring, set, tenant = ringNext(base, k.ring, k.ringset)
    if not group then return nil, reopenAt end
    local active, limit, paused = laneState(group, k.paused, k.glimit, k.gactive)
    -- NOTE: no depth read: ZPOPMIN in serveLane takes no more than the lane holds.
    local want = weighted and tonumber(rcall('HGET', k.gweight, group)) or 1
    if limit and want > limit - active then want = limit - active end
    if cap > 0 and want > cap then want = cap end
    local setting = rated and rcall('HGET', k.grate, group)
    local window = setting and rateWindow(base, group, setting, now)
    local serviceable = want >= 1 and not paused
    if serviceable and window then want = window.room(want) end
    if serviceable and want == 0 then
      -- NOTE: back on the ring with its window still full (see claim): park it and rotate on.
      rcall('RPOP', ring)
      ringLeft(k.ring, k.ringset, ring, tenant)
      local at = window.reopenAt()
      window.park(k.timers, k.wake, at)
      if reopenAt < 0 or at < reopenAt then reopenAt = at end
    elseif serviceable then
      local n, left = serveLane(base, group, want, leaseUntil, out, ring, set, k.active, k.gactive, active, limit, k)
      local reopen = window and window.record(n)
      if reopen then
        if left then rcall('SADD', set, group) else rcall('RPOP', ring) end
        window.park(k.timers, k.wake, reopen)
        if reopenAt < 0 or reopen < reopenAt then reopenAt = reopen end
      end
      if left or reopen then ringLeft(k.ring, k.ringset, ring, tenant) end
      -- NOTE: a turn that found only lane entries without rows (see serveLane) rotates on.
      if n > 0 then return n, reopenAt end
    else
      -- NOTE: unreachable while the ring invariant holds (see claim); heal and rotate on.
      rcall('RPOP', ring)
      rcall('SREM', set, group)
      ringLeft(k.ring, k.ringset, ring, tenant)
    end
  end
  return nil, reopenAt
end
