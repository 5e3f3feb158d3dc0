--[[
  completedLastMinute(statsKey, now) -> completions in the 60 whole seconds before now's second
  Sums the per-second buckets (keys emq:{q}:stats:<second>) that countCompleted keeps, in one MGET;
  the current second, still filling, is left out.
]]
local function completedLastMinute(statsKey, now)
  local sec = math.floor(now / 1000)
  local buckets = {}
  for s = sec - 60, sec - 1 do buckets[#buckets + 1] = statsKey .. ':' .. string.format('%d', s) end
  local counts = rcall('MGET', unpack(buckets))
  local sum = 0
  for i = 1, #counts do sum = sum + (tonumber(counts[i]) or 0) end
  return sum
end
