--- @include "bucketKeys"
--[[
  completedLastMinute(statsKey, now) -> completions in the last 60 s: now's second, still filling,
  and the 59 before it (so a completion counts at once)
  Sums the per-second buckets that countCompleted keeps, in one MGET.
]]
local function completedLastMinute(statsKey, now)
  local counts = rcall('MGET', unpack(bucketKeys(statsKey, math.floor(now / 1000))))
  local sum = 0
  for i = 1, #counts do sum = sum + (tonumber(counts[i]) or 0) end
  return sum
end
