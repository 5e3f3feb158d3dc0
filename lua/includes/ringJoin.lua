--- @include "pushWake"
--- @include "learnSettings"
--[[
  ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, filled)
  Puts a lane on the ring when it is serviceable (non-empty, unpaused, under its ceiling) and not
  on it yet; membership is read from the ring set, so this is O(1) in the number of lanes.
  Only adds: the hot paths (submit, complete, fail, reap, promote, retryDead) can only make a lane
  more serviceable, so they never scan the ring. Pushes a wake token whenever the lane gained work.
  `filled` is true when the caller has just added to the lane (it is then known to be non-empty).
  Returns 1 when the lane joined the ring, 0 otherwise.
]]
local function ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, filled)
  if not filled and rcall('ZCARD', base .. 'g:' .. group .. ':pending') == 0 then return 0 end
  if anyPaused and rcall('SISMEMBER', pausedKey, group) == 1 then return 0 end
  local lim
  if anyLimit then lim = tonumber(rcall('HGET', glimitKey, group)) end
  if lim and (tonumber(rcall('HGET', gactiveKey, group)) or 0) >= lim then return 0 end
  pushWake(wakeKey)
  if rcall('SADD', ringSetKey, group) == 1 then
    rcall('RPUSH', ringKey, group)
    return 1
  end
  return 0
end
