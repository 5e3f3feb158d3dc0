--- @include "ringSync"
--- @include "indexSetting"
--- @include "compatMode"
--[[
  laneShrunk(base, group, k, popped, depth)
  After an operator took pending jobs out of a lane (cancel, drain): the lane index gets the depth
  left; a lane left empty leaves the ring and, with no active job and no setting, the index.
  `popped`: the caller has already taken the lane off the ring list (LPOP), so it only leaves the
  ring set. Otherwise it leaves by ringSync (an LREM, which scans the ring: operator paths only),
  except a lane its rate parked: that one is off the ring already and stays in the ring set until
  its timer, which then finds it empty (in compat mode it leaves the ring list all the same: the
  other writer, knowing no rates, may have put it back). `k` names the keys: ring, ringset, paused, glimit, gactive,
  wake, lanes, gweight, grate, timers. `depth`: the lane's depth now when the caller knows it.
]]
local function laneShrunk(base, group, k, popped, depth)
  depth = depth or rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  if depth > 0 then
    rcall('ZADD', k.lanes, 'XX', string.format('%d', depth), group)
    return
  end
  rcall('ZADD', k.lanes, 'XX', '0', group)
  if popped then
    rcall('SREM', k.ringset, group)
  elseif not rcall('ZSCORE', k.timers, 'r:' .. group) then
    ringSync(base, group, k.ring, k.ringset, k.paused, k.glimit, k.gactive, k.wake)
  elseif compatMode() then
    rcall('LREM', k.ring, 0, group)
  end
  indexSetting(k.lanes, group, false, k.paused, k.glimit, k.gweight, k.gactive, k.grate)
end
