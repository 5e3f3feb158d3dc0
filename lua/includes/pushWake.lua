--[[
  pushWake(wakeKey) -> pushes one token onto the wake list, which idle consumers block on, unless it
  already holds 16 (a bound: one token wakes one blocked consumer, and a woken consumer that
  finds work claims for the others too). The list's room is read once per script and counted
  down after: nothing else runs meanwhile.
]]
local wakeRoom
local function pushWake(wakeKey)
  if wakeRoom == nil then wakeRoom = 16 - rcall('LLEN', wakeKey) end
  if wakeRoom > 0 then
    rcall('LPUSH', wakeKey, '1')
    wakeRoom = wakeRoom - 1
  end
end
