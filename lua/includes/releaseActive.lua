--[[
  releaseActive(gactiveKey, activeKey, group, id)
  Drops a job's lease and its lane's active count; the count's field is deleted at zero so that the
  hash only names lanes with leased jobs.
]]
local function releaseActive(gactiveKey, activeKey, group, id)
  rcall('ZREM', activeKey, id)
  if rcall('HINCRBY', gactiveKey, group, '-1') <= 0 then rcall('HDEL', gactiveKey, group) end
end
