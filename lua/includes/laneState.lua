--[[
  laneState(base, group, pausedKey, glimitKey, gactiveKey) -> depth, active, limit (nil when none), paused
  Reads what decides whether a lane is serviceable.
]]
local function laneState(base, group, pausedKey, glimitKey, gactiveKey)
  local depth = rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  local active = tonumber(rcall('HGET', gactiveKey, group)) or 0
  local limit = tonumber(rcall('HGET', glimitKey, group))
  local paused = rcall('SISMEMBER', pausedKey, group) == 1
  return depth, active, limit, paused
end
