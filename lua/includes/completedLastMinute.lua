--[[
  completedLastMinute(statsKey, now) -> completions in the last 60 s: now's second, still filling,
  and the 59 before it (so a completion counts at once)
  Sums the per-second buckets (keys emq:{q}:stats:<second>, kept 61 s) that countCompleted keeps,
  in one MGET.
]]
local function completedLastMinute(statsKey, now)
  local sec = math.floor(now / 1000)
  local buckets = {}
  for s = sec - 59, sec do buckets[#buckets + 1] = statsKey .. ':' .. string.format('%d', s) end
  local counts = rcall('MGET', unpack(buckets))
  local sum = 0
  for i = 1, #counts do sum = sum + (tonumber(counts[i]) or 0) end
  return sum
end
