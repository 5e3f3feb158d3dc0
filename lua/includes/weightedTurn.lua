--- @include "laneState"
--- @include "serveLane"
--- @include "ringNext"
--- @include "rateWindow"
--[[
  weightedTurn(base, cap, now, leaseUntil, out, k, rated, weighted) -> served (nil when no lane is serviceable), reopenAt
  One weighted turn, the whole of what one wclaim serves: rotate the ring one step exactly as claim
  does (at both levels, see laneRing), then serve K = min(weight, pending depth, limit - active, cap, room left in the lane's rate
  window) heads of the rotated lane under one lease (cap 0: no cap). A lane found with its rate
  window full is parked (off the ring, kept in the ring set, with a timer) and the ring rotates on
  (under a tenant, the tenant's own ring first: its turn is not over, see ringNext's `turn`);
  a lane whose window the turn fills is parked the same way. `rated` tells whether any lane of the
  queue has a rate (see laneTimers); `weighted` false tells that no lane has a weight (the gweight
  hash is absent), so every weight is 1 and is not read. Appends the jobs to `out` (see serveLane). reopenAt is the
  earliest time a lane parked by this turn has room again, -1 when none.
  wclaim takes one turn and wclaimMany takes them in a loop, so what a turn serves is decided here.
  `k` names the keys: ring, ringset, paused, glimit, gactive, active, gweight, timers, grate, wake,
  dead (a lane entry without a row goes there, see serveLane).
  On a tenant's entry the turn is the tenant's: its weight w (tenantWeight) gives it w turns of its
  own ring, each a lane's weighted turn, all clamped to the room under the tenant's limit.
]]

--[[
  laneTurn(base, group, ring, set, tenant, t, cap, now, leaseUntil, out, k, rated, weighted)
    -> served, reopenAt (nil when the lane was not parked), gone (the lane left `ring`'s list)
  One lane's weighted turn, the lane rotated to the tail of `ring` (the queue's, or its tenant's).
]]
local function laneTurn(base, group, ring, set, tenant, t, cap, now, leaseUntil, out, k, rated, weighted)
  local active, limit, paused = laneState(group, k.paused, k.glimit, k.gactive)
  -- NOTE: no depth read: ZPOPMIN in serveLane takes no more than the lane holds.
  local want = weighted and tonumber(rcall('HGET', k.gweight, group)) or 1
  if limit and want > limit - active then want = limit - active end
  if cap > 0 and want > cap then want = cap end
  if tenant and t.limit and want > t.limit - t.active then want = t.limit - t.active end
  local setting = rated and rcall('HGET', k.grate, group)
  local window = setting and rateWindow(base, group, setting, now)
  local serviceable = want >= 1 and not paused
  if serviceable and window then want = window.room(want) end
  if serviceable and want == 0 then
    -- NOTE: back on the ring with its window still full (see claim): park it and rotate on.
    if ringPlain then rcall('RPOP', ring) else ringOps().drop(base, ring, group) end
    local at = window.reopenAt()
    window.park(k.timers, k.wake, at)
    return 0, at, true
  elseif serviceable then
    local n, left, work = serveLane(base, group, want, leaseUntil, out, ring, set, k.active, k.gactive, active, limit, k, tenant)
    local reopen = window and window.afterServe(n, left, ring, set, k.timers, k.wake)
    return n, reopen or nil, left or (reopen and true) or false, work
  end
  -- NOTE: unreachable while the ring invariant holds (see claim); heal and rotate on.
  if ringPlain then rcall('RPOP', ring) else ringOps().drop(base, ring, group) end
  rcall('SREM', set, group)
  return 0, nil, true
end

local function weightedTurn(base, cap, now, leaseUntil, out, k, rated, weighted)
  local reopenAt = -1
  -- NOTE: a tenant whose step served nothing keeps its turn (see ringNext's `turn`).
  local open
  for _ = 0, 16 do
    local group, ring, set, tenant, t = ringNext(base, k.ring, k.ringset, open)
    open = nil
    if not group then return nil, reopenAt end
    local n, at, gone, work = laneTurn(base, group, ring, set, tenant, t, cap, now, leaseUntil, out, k, rated, weighted)
    if at and (reopenAt < 0 or at < reopenAt) then reopenAt = at end
    local left = tenant and tenantOps().served(base, k.ring, k.ringset, ring, tenant, t, n, gone, work)
    -- NOTE: a turn that found only lane entries without rows (see serveLane) rotates on.
    if n > 0 then
      local total = n
      -- NOTE: the tenant's further turns, on its own ring, while its entry is still on the queue's
      -- ring (it leaves with its last lane, or at its limit) and the cap has room.
      for _ = 2, (tenant and t.weight or 1) do
        if left or (cap > 0 and total >= cap) then break end
        local next = stepRing(base, ring)
        if not next then break end
        local m
        m, at, gone, work = laneTurn(base, next, ring, set, tenant, t, cap > 0 and cap - total or 0, now, leaseUntil, out, k, rated, weighted)
        if at and (reopenAt < 0 or at < reopenAt) then reopenAt = at end
        left = tenantOps().served(base, k.ring, k.ringset, ring, tenant, t, m, gone, work)
        total = total + m
      end
      return total, reopenAt
    end
    if tenant and not left then open = { ring = ring, set = set, tenant = tenant, t = t } end
  end
  return nil, reopenAt
end
