--- @include "ringJoin"
--[[
  ringSync(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  Makes ring membership match serviceability in both directions: joins like ringJoin, and takes a
  lane that is no longer serviceable off the ring with LREM. The LREM scans the ring, so this is
  only used by operator paths (pause, resume, limit), never by claim or ack. A lane under a tenant
  leaves its tenant's ring, and the tenant's entry the queue's ring with its last lane. In compat mode the lane
  leaves by LREM whatever the ring set says (another writer may have put it on the ring).
  Returns 1 when the lane joined, -1 when it left, 0 otherwise.
]]
local function ringSync(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey)
  if ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey) == 1 then
    return 1
  end
  local lane = base .. 'g:' .. group .. ':pending'
  local serviceable = rcall('ZCARD', lane) > 0 and rcall('SISMEMBER', pausedKey, group) == 0
  if serviceable then
    local lim = tonumber(rcall('HGET', glimitKey, group))
    if lim and (tonumber(rcall('HGET', gactiveKey, group)) or 0) >= lim then serviceable = false end
  end
  if not serviceable and compatMode() then
    rcall('SREM', ringSetKey, group)
    if rcall('LREM', ringKey, 0, group) > 0 then return -1 end
    return 0
  end
  if not serviceable then
    -- NOTE: a lane under a tenant leaves its tenant's ring, and the tenant's entry leaves the
    -- queue's ring with the tenant's last lane (see laneRing).
    local ring, set, tenant = laneRing(base, group, ringKey, ringSetKey)
    if rcall('SREM', set, group) == 1 then
      ringOps().remove(base, ring, group)
      if tenant then tenantOps().vacate(base, ringKey, ringSetKey, ring, tenant, false) end
      return -1
    end
  end
  return 0
end
