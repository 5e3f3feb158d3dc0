--- @include "learnSettings"
--- @include "headEntry"
--[[
  indexForget(indexKey, group, pausedKey, glimitKey, weightKey, grateKey, tenant)
  The lane index (emq:{q}:lanes) names every lane with pending or active jobs or a setting, scored
  by its pending depth. Called when a lane's active count has just reached 0: a lane that has no
  pending job left and no setting (pause, ceiling, weight, rate) then leaves the index (with its head
  entry, in the same ZREM: see headBack), and its
  tenant (emq:{q}:g:<group>:tenant, and its place in emq:{q}:t:<tenant>:lanes; a tenant left with
  no lane leaves emq:{q}:tenants) goes with it.
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
  -- NOTE: a forgotten lane holds no job, so it forgets its tenant too (the jobs still scheduled or
  -- dead carry it in their rows, see laneRing).
  if rcall('ZREM', indexKey, group, headEntry(group)) > 0 then
    local base = string.sub(indexKey, 1, -6)
    if tenant == nil then tenant = rcall('GET', base .. 'g:' .. group .. ':tenant') end
    if tenant then
      rcall('DEL', base .. 'g:' .. group .. ':tenant')
      rcall('SREM', base .. 't:' .. tenant .. ':lanes', group)
      if rcall('SCARD', base .. 't:' .. tenant .. ':lanes') == 0 then rcall('SREM', base .. 'tenants', tenant) end
    end
  end
end
