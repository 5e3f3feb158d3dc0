--- @include "ringJoin"
--[[
  promoteDue(base, now, max, scheduleKey, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  Moves at most `max` scheduled jobs whose due time has come into their own lanes, at their mint
  position, and rings those lanes. Returns the number moved and the next due time still waiting
  (-1 when none), so an idle consumer knows how long it may block.
]]
local function promoteDue(base, now, max, scheduleKey, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  local moved = 0
  if max > 0 then
    local due = rcall('ZRANGEBYSCORE', scheduleKey, '-inf', now, 'LIMIT', 0, max)
    for i = 1, #due do
      local id = due[i]
      local jobKey = base .. 'job:' .. id
      rcall('ZREM', scheduleKey, id)
      local group = rcall('HGET', jobKey, 'group')
      if group then
        rcall('HSET', jobKey, 'state', 'pending')
        rcall('ZADD', base .. 'g:' .. group .. ':pending', 0, id)
        ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
        moved = moved + 1
      end
    end
  end
  local nxt = rcall('ZRANGE', scheduleKey, 0, 0, 'WITHSCORES')
  if nxt[2] then return moved, tonumber(nxt[2]) end
  return moved, -1
end
