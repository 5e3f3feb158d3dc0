--[[
  laneState(base, group, pausedKey, glimitKey, gactiveKey) -> depth, active, limit (nil when none), paused
  Reads what decides whether a lane is serviceable. The active count only matters under a ceiling,
  so it is read only when the lane has one (0 otherwise).
]]
local function laneState(base, group, pausedKey, glimitKey, gactiveKey)
  local depth = rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  local limit = tonumber(rcall('HGET', glimitKey, group))
  local active = 0
  if limit then active = tonumber(rcall('HGET', gactiveKey, group)) or 0 end
  local paused = rcall('SISMEMBER', pausedKey, group) == 1
  return depth, active, limit, paused
end
