--[[
  unparkLane(group, timersKey, ringSetKey)
  A lane parked by its rate is in the ring set but off the ring list, with a timer r:<group>.
  Operator paths (pause, resume, limit, rate) call this before ringSync, so that ring-set
  membership means "on the ring list" again for them: the timer goes and the lane leaves the set.
  If its window is still full, the next claim that reaches it parks it again.
]]
local function unparkLane(group, timersKey, ringSetKey)
  if rcall('ZREM', timersKey, 'r:' .. group) == 1 then rcall('SREM', ringSetKey, group) end
end
