--- @include "learnSettings"
--[[
  laneState(group, pausedKey, glimitKey, gactiveKey) -> active, limit (nil when none), paused
  Reads what decides whether a lane on the ring may be served. Its depth is not read: ZPOPMIN takes
  what there is, and serveLane counts what is left. The active count only
  matters under a ceiling, so it is read only when the lane has one (0 otherwise); neither the
  ceiling nor the pause flag is read when the script learnt that the queue has none (learnSettings).
]]
local function laneState(group, pausedKey, glimitKey, gactiveKey)
  local limit
  if anyLimit then limit = tonumber(rcall('HGET', glimitKey, group)) end
  local active = 0
  if limit then active = tonumber(rcall('HGET', gactiveKey, group)) or 0 end
  local paused = anyPaused and rcall('SISMEMBER', pausedKey, group) == 1
  return active, limit, paused
end
