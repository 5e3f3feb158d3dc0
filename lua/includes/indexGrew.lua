--- @include "indexMoved"
--[[
  indexGrew(indexKey, group, laneKey, added): `added` jobs went back into the lane (a retry, a reap,
  a hand-back, a promotion, retryDead): its score in the lane index follows (one ZCARD, and a ZADD
  of the depth when it left its band, see indexMoved).
]]
local function indexGrew(indexKey, group, laneKey, added)
  local depth = rcall('ZCARD', laneKey)
  if indexMoved(depth - added, depth) then rcall('ZADD', indexKey, string.format('%d', depth), group) end
end
