--[[
  completedLastMinute(statsKey, now) -> completions in the 60 whole seconds before now's second
  Sums the per-second buckets (fields s<second>) that countCompleted keeps; the current second,
  still filling, is left out. At most about 62 buckets exist.
]]
local function completedLastMinute(statsKey, now)
  local sec = math.floor(now / 1000)
  local fields = {}
  for s = sec - 60, sec - 1 do fields[#fields + 1] = 's' .. s end
  local counts = rcall('HMGET', statsKey, unpack(fields))
  local sum = 0
  for i = 1, #counts do sum = sum + (tonumber(counts[i]) or 0) end
  return sum
end
