--- @include "ringJoin"
--[[
  reopenLane(base, group, activeLeft, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  After a lane's active count dropped and nothing was added to the lane: only a ceiling can have
  kept it off the ring, so a lane without one needs nothing more than this one HGET (the common
  case, on every ack; none at all when the script learnt the queue has no ceiling); a lane now under
  its ceiling goes through ringJoin, told whether it was off the ring (at its ceiling until now) or
  on it (serviceable until now, when it has work), which spares compat mode its scan of the ring.
]]
local function reopenLane(base, group, activeLeft, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  if not anyLimit then return end
  local lim = tonumber(rcall('HGET', glimitKey, group))
  if lim and activeLeft < lim then
    ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, false,
      activeLeft + 1 >= lim and 'off' or 'on')
  end
end
