--[[
  bucketKeys(statsKey, sec) -> the keys of the per-second completion buckets of the last minute
  (emq:{q}:stats:<second>, kept 61 s by countCompleted): now's second, still filling, last, and
  the 59 before it first.
]]
local function bucketKeys(statsKey, sec)
  local buckets = {}
  for s = sec - 59, sec do buckets[#buckets + 1] = statsKey .. ':' .. string.format('%d', s) end
  return buckets
end
