--[[
  pushWake(wakeKey, tokens) -> pushes `tokens` (default 1) tokens onto the wake list, which idle
  consumers block on, in one LPUSH, but never so many that it holds more than 16 (a bound: one
  token wakes one blocked consumer, and a woken consumer that finds work claims for the others
  too), and none while the whole queue is paused. The list's room is read once per script and
  counted down after: nothing else runs meanwhile. `wakeKey` is emq:{q}:wake.
]]
--- @per-call wakeRoom
local wakeRoom
local function pushWake(wakeKey, tokens)
  if wakeRoom == nil then
    -- NOTE: a paused queue (field `paused` of emq:{q}:meta, the wake key's neighbour) wakes nobody:
    -- every claim is refused while it lasts, so each token would only make an idle consumer claim
    -- and block again, once per submit. resumeQueue clears the field before it wakes a consumer.
    if rcall('HEXISTS', string.sub(wakeKey, 1, -5) .. 'meta', 'paused') == 1 then
      wakeRoom = 0
    else
      wakeRoom = 16 - rcall('LLEN', wakeKey)
    end
  end
  local n = tokens or 1
  if n > wakeRoom then n = wakeRoom end
  if n > 0 then
    local ones = {}
    for i = 1, n do ones[i] = '1' end
    rcall('LPUSH', wakeKey, unpack(ones))
    wakeRoom = wakeRoom - n
  end
end

--[[
  wakeListFull() -> true once this script has learnt that pushWake can push nothing more (the list
  holds 16, or the queue is paused), so a caller can skip work done only for the wake.
]]
local function wakeListFull()
  return wakeRoom == 0
end
