--- @include "laneRing"
--[[
  A lane's tenant, as a submit (or a job coming back to its lane) names it. A lane's tenant is fixed
  while the lane holds jobs (here: pending or active); while it holds none, a submit naming a tenant
  sets it. Every job of a tenant carries it in its row (field `tenant`), so a job that comes back
  to a lane the queue has forgotten meanwhile (promoted, retried from the dead set) puts the lane
  back under its tenant.

  tenantConflict(base, group, tenant, gactiveKey) -> the lane's tenant (or '' for none) when
    naming `tenant` for this lane must be refused (it holds jobs under another tenant or under
    none), else nil; reads only
  tenantAdopt(base, group, tenant, ringSetKey): makes `tenant` the lane's tenant when it is not yet;
    a lane its rate parked (kept in a ring set while off the ring) moves to the new tenant's set
    with it, so its timer still finds it. Only for a lane that holds no job (tenantConflict said
    nil) or one whose tenant is unset.
  tenantReturn(base, group, tenant, gactiveKey, ringSetKey): a job whose row names `tenant` (false
    or nil: none) is about to go back into its lane: a lane that holds no job takes the job's tenant
    back; one that holds jobs keeps its own (the job is served under it).
]]
local function tenantConflict(base, group, tenant, gactiveKey)
  local current = laneTenant(base, group)
  if current == tenant then return nil end
  if rcall('ZCARD', base .. 'g:' .. group .. ':pending') > 0 or rcall('HGET', gactiveKey, group) then
    return current or ''
  end
  return nil
end

local function tenantAdopt(base, group, tenant, ringSetKey)
  local key = base .. 'g:' .. group .. ':tenant'
  local current = rcall('GET', key)
  if current == tenant then return end
  rcall('SET', key, tenant)
  local from = ringSetKey
  if current then
    local _, set = tenantRingKeys(base, current)
    from = set
  end
  local _, to = tenantRingKeys(base, tenant)
  if rcall('SREM', from, group) == 1 then rcall('SADD', to, group) end
end

local function tenantReturn(base, group, tenant, gactiveKey, ringSetKey)
  if not tenant or compatMode() then return end
  if not tenantConflict(base, group, tenant, gactiveKey) then tenantAdopt(base, group, tenant, ringSetKey) end
end
