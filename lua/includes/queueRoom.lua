--- @include "pushWake"
--[[
  queueRoom(wakeKey, activeKey, n): n jobs have just stopped being active (their leases dropped); a
  queue that was at its ceiling (field `limit` of emq:{q}:meta, the wake key's neighbour, read as
  pushWake reads `paused`; see queueLimit) and now has room wakes a consumer, since claims served
  nothing while it was full. Called only for jobs served under a ceiling (their row field `held`
  opens with '1', see serveLane), so a queue without one reads nothing here; a job leased before the ceiling
  was set is marked by queueLimit then (see lua/queueLimit), so its ack asks too.
]]
local function queueRoom(wakeKey, activeKey, n)
  if n <= 0 then return end
  local limit = tonumber(rcall('HGET', string.sub(wakeKey, 1, -5) .. 'meta', 'limit'))
  if not limit then return end
  local active = rcall('ZCARD', activeKey)
  if active < limit and active + n >= limit then pushWake(wakeKey, math.min(n, limit - active)) end
end
