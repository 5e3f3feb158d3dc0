--- @include "compatMode"
--[[
  strayJob(base, id, hasRow, reason, now, k) -> 'pending' | 'dead'
  Where a scheduled or leased id goes when it is not one of our lane jobs: its row is missing, or
  the row has no group (a flat job of the EchoMQ reference). Never dropped: in compat mode a flat job
  goes back to the flat pending set (k.pending) with state pending, as the reference keeps it;
  otherwise, and always for a missing row, it goes to the dead set (k.dead, scored by now) with
  `reason` as its last_error, so dead() shows it (an id with no row is shown with that reason too),
  and counted in the `dead` total (k.stats).
  Only reached on foreign data, so it costs the hot paths nothing.
]]
local function strayJob(base, id, hasRow, reason, now, k)
  local jobKey = base .. 'job:' .. id
  if compatMode() and hasRow then
    rcall('HSET', jobKey, 'state', 'pending')
    rcall('ZADD', k.pending, 0, id)
    return 'pending'
  end
  local nowText = string.format('%d', now)
  if hasRow then rcall('HSET', jobKey, 'state', 'dead', 'last_error', reason, 'done', nowText) end
  rcall('ZADD', k.dead, nowText, id)
  rcall('HINCRBY', k.stats, 'dead', '1')
  return 'dead'
end
