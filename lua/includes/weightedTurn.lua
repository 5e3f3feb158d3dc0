--- @include "laneState"
--- @include "serveLane"
--- @include "rotateRing"
--[[
  weightedTurn(base, cap, leaseUntil, out, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, activeKey, weightKey)
  One weighted turn, the whole of what one wclaim serves: rotate the ring one step exactly as claim
  does, then serve K = min(weight, pending depth, limit - active, cap) heads of the rotated lane
  under one lease (cap 0: no cap). Appends the jobs to `out` (see serveLane); returns how many it
  served, nil when no lane is serviceable. wclaim takes one turn, wclaimMany takes them in a loop, so
  a change to what a turn serves is made here once.
]]
local function weightedTurn(base, cap, leaseUntil, out, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, activeKey, weightKey)
  for healed = 0, 16 do
    local group = rotateRing(ringKey)
    if not group then return nil end
    local depth, active, limit, paused = laneState(base, group, pausedKey, glimitKey, gactiveKey)
    local k = tonumber(rcall('HGET', weightKey, group)) or 1
    if k > depth then k = depth end
    if limit and k > limit - active then k = limit - active end
    if cap > 0 and k > cap then k = cap end
    if k >= 1 and not paused then
      return serveLane(base, group, k, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, depth, active, limit)
    end
    -- NOTE: unreachable while the ring invariant holds (see claim); heal and rotate on.
    rcall('RPOP', ringKey)
    rcall('SREM', ringSetKey, group)
  end
  return nil
end
