--- @include "laneRing"
--[[
  unparkLane(base, group, timersKey, ringKey, ringSetKey)
  A lane parked by its rate is in the ring set but off the ring list, with a timer r:<group>.
  Operator paths (pause, resume, limit, rate) call this before ringSync, so that ring-set
  membership means "on the ring list" again for them: the timer goes and the lane leaves the set.
  A lane under a tenant is parked in its tenant's ring set (see laneRing).
  If its window is still full, the next claim that reaches it parks it again.
]]
local function unparkLane(base, group, timersKey, ringKey, ringSetKey)
  if rcall('ZREM', timersKey, 'r:' .. group) == 1 then
    local _, set = laneRing(base, group, ringKey, ringSetKey)
    rcall('SREM', set, group)
  end
end
