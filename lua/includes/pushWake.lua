--[[
  pushWake(wakeKey, tokens) -> pushes `tokens` (default 1) tokens onto the wake list, which idle
  consumers block on, in one LPUSH, but never so many that it holds more than 16 (a bound: one
  token wakes one blocked consumer, and a woken consumer that finds work claims for the others
  too). The list's room is read once per script and counted down after: nothing else runs
  meanwhile.
]]
local wakeRoom
local function pushWake(wakeKey, tokens)
  if wakeRoom == nil then wakeRoom = 16 - rcall('LLEN', wakeKey) end
  local n = tokens or 1
  if n > wakeRoom then n = wakeRoom end
  if n > 0 then
    local ones = {}
    for i = 1, n do ones[i] = '1' end
    rcall('LPUSH', wakeKey, unpack(ones))
    wakeRoom = wakeRoom - n
  end
end
