--- @include "indexForget"
--[[
  indexSetting(indexKey, group, added, pausedKey, glimitKey, weightKey, gactiveKey, grateKey)
  Keeps the lane index right after an operator changed a lane's setting: a lane that gained one is
  indexed (at its depth, 0 when it was not indexed: a lane outside the index has no pending job);
  a lane that lost one leaves the index when it is now idle and has no setting left.
]]
local function indexSetting(indexKey, group, added, pausedKey, glimitKey, weightKey, gactiveKey, grateKey)
  if added then
    rcall('ZADD', indexKey, 'NX', '0', group)
  elseif not rcall('HGET', gactiveKey, group) then
    indexForget(indexKey, group, pausedKey, glimitKey, weightKey, grateKey)
  end
end
