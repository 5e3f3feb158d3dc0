--[[
  releaseActive(gactiveKey, activeKey, group, id) -> the lane's active count left
  Drops a job's lease and its lane's active count; the count's field is deleted at zero so that the
  hash only names lanes with leased jobs. activeKey false: the caller drops the lease itself (a
  batch drops all of its leases in one ZREM).
]]
local function releaseActive(gactiveKey, activeKey, group, id)
  if activeKey then rcall('ZREM', activeKey, id) end
  local left = rcall('HINCRBY', gactiveKey, group, '-1')
  if left <= 0 then
    rcall('HDEL', gactiveKey, group)
    return 0
  end
  return left
end
