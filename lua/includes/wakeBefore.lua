--- @include "pushWake"
--[[
  wakeBefore(zsetKey, dueAt, wakeKey)
  Called just before something is added to a sorted set of due times (the schedule, the lane
  timers) at `dueAt`: an idle consumer blocks until the earliest due time it was told of, so a
  new earliest one must wake it now (it then claims, learns the new due time and blocks until
  then). A due time later than the set's head needs nothing: some consumer wakes at the head and
  learns of it then. One read of the head; a token only when the new time is the earliest.
]]
local function wakeBefore(zsetKey, dueAt, wakeKey)
  local head = rcall('ZRANGE', zsetKey, '0', '0', 'WITHSCORES')
  if head[2] == nil or dueAt < tonumber(head[2]) then pushWake(wakeKey) end
end
