--- @include "ringJoin"
--[[
  ringRejoin(base, group, activeLeft, requeued, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  ringJoin for a lane one of whose jobs has just stopped being active (its active count is now
  `activeLeft`) and, when `requeued`, gone back into the lane. In compat mode it works out where
  the lane stood from its depth and ceiling instead of scanning the ring (both writers keep an
  empty lane off the ring and a serviceable one on it): on it when it had other pending jobs and
  was under its ceiling, off it otherwise. A reap of 500 expired leases would otherwise scan the
  ring 500 times. The default mode reads the ring set, as ringJoin does.
]]
local function ringRejoin(base, group, activeLeft, requeued, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  local placed
  if compatMode() then
    local before = rcall('ZCARD', base .. 'g:' .. group .. ':pending') - (requeued and 1 or 0)
    local lim = anyLimit and tonumber(rcall('HGET', glimitKey, group))
    placed = (before > 0 and not (lim and activeLeft + 1 >= lim)) and 'on' or 'off'
  end
  return ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, false, placed)
end
