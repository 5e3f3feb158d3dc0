--- @include "fairMode"
--- @include "fairOps"
--[[
  A lane letting its tenant go: the one place that keeps emq:{q}:t:<T>:lanes (T's lanes that hold
  jobs or settings) and emq:{q}:tenants (the tenants that have such lanes) in step when a lane
  leaves T. All keys derived from base.
  laneLeavesTenant(base, group, T) -> true when T, left with no lane, left emq:{q}:tenants too
    (adopt calls it when a lane moves to another tenant), and with it, in `cost`/`time` fairness, its
    ring's virtual time (see fairOps)
  laneUnbind(base, group, T?): the lane forgets its tenant (its key emq:{q}:g:<group>:tenant goes,
    and it leaves its tenant's lanes); `T` when the caller knows it, nil to read it. The caller
    knows the lane holds no job (see laneParked and indexForget).
]]
local function laneLeavesTenant(base, group, tenant)
  local lanesKey = base .. 't:' .. tenant .. ':lanes'
  rcall('SREM', lanesKey, group)
  if rcall('SCARD', lanesKey) > 0 then return false end
  rcall('SREM', base .. 'tenants', tenant)
  -- NOTE: in `cost`/`time` fairness its ring's virtual time goes too (fairOps.forgetTenant).
  if fairMode(base) then fairOps().forgetTenant(base, tenant) end
  return true
end

local function laneUnbind(base, group, tenant)
  if tenant == nil then tenant = rcall('GET', base .. 'g:' .. group .. ':tenant') end
  if not tenant then return end
  rcall('DEL', base .. 'g:' .. group .. ':tenant')
  laneLeavesTenant(base, group, tenant)
end
