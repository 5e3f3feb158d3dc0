--- @include "learnSettings"
--- @include "headEntry"
--- @include "laneParked"
--- @include "laneUnbind"
--[[
  indexForget(indexKey, group, pausedKey, glimitKey, weightKey, grateKey, tenant)
  The lane index (emq:{q}:lanes) names every lane with pending or active jobs or a setting, scored
  by its pending depth. Called when a lane's active count has just reached 0: a lane that has no
  pending job left and no setting (pause, ceiling, weight, rate) then leaves the index (with its head
  entry, in the same ZREM: see headBack), and its tenant goes with it (laneUnbind) unless a job of
  the lane is still scheduled or dead (laneParked): those hold it too.
  `tenant`: the lane's tenant when the caller knows it (the row of the job that just ended names
  it: a lane's tenant cannot change while it holds a job), false when it knows the lane has none,
  nil when it does not know (then it is read). Costs one ZCARD
  while the lane still has work, a few reads when it goes idle. `indexKey` is emq:{q}:lanes.
]]
local function indexForget(indexKey, group, pausedKey, glimitKey, weightKey, grateKey, tenant)
  -- NOTE: the lane counted (ZCARD of emq:{q}:g:<group>:pending, the index key's prefix + the lane's
  -- name) rather than its index score read: a ZSCORE reply is a double, which Redis formats slowly.
  if rcall('ZCARD', string.sub(indexKey, 1, -6) .. 'g:' .. group .. ':pending') > 0 then return end
  -- NOTE: a script that learnt nothing (one job) asks once whether the queue has any setting at all,
  -- rather than whether this lane has each of the four.
  if anyPaused and anyLimit and anyWeightOrRate and rcall('EXISTS', pausedKey, glimitKey, weightKey, grateKey) == 0 then
    anyPaused, anyLimit, anyWeightOrRate = false, false, false
  end
  if (anyPaused and rcall('SISMEMBER', pausedKey, group) == 1)
     or (anyLimit and rcall('HEXISTS', glimitKey, group) == 1)
     or (anyWeightOrRate and (rcall('HEXISTS', weightKey, group) == 1 or rcall('HEXISTS', grateKey, group) == 1)) then
    return
  end
  if rcall('ZREM', indexKey, group, headEntry(group)) > 0 and tenant ~= false then
    local base = string.sub(indexKey, 1, -6)
    if tenant == nil then tenant = rcall('GET', base .. 'g:' .. group .. ':tenant') end
    if tenant and not laneParked(base, group) then laneUnbind(base, group, tenant) end
  end
end
