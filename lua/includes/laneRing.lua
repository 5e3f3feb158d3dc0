--- @include "compatMode"
--- @include "rotateRing"
--[[
  The two levels of the ring, and the one place that knows them.
  A lane under no tenant lives on the queue's ring (emq:{q}:ring, membership in emq:{q}:ringset).
  A lane under tenant T lives on T's own ring, emq:{q}:t:<T>:ring (membership in
  emq:{q}:t:<T>:ringset), and the queue's ring holds T once, as the entry '{t}' .. T, while T's
  ring list is not empty. Group names cannot hold '{', so an entry that opens with it is a tenant.
  A lane's tenant is the string emq:{q}:g:<group>:tenant (a lane key, like its pending set), set by
  the submit that names it while the lane holds no job; compat mode has no tenants, so it is not
  read there.

  laneTenant(base, group) -> the lane's tenant, nil when none
  laneRing(base, group, ringKey, ringSetKey) -> ring, ringset, tenant: where the lane lives
  tenantJoin(ringKey, ringSetKey, tenant) -> 1 when T's entry joined the queue's ring
  tenantVacate(ringKey, ringSetKey, tenantRing, tenant, atTail): T's entry leaves the queue's ring
    when T's ring list is empty (atTail: a claim has just rotated it to the tail, so RPOP; else LREM)
  ringLeft(ringKey, ringSetKey, ring, tenant): after a claim took the lane it rotated off `ring`
    (ringNext's), its tenant's entry leaves the queue's ring when that was the tenant's last lane
  ringNext(base, ringKey, ringSetKey) -> group, ring, ringset, tenant: one step of the rota, at
    both levels (the queue's ring, then on a tenant entry that tenant's ring); nil when nothing is
    on the ring. The lane is then at the tail of `ring` and, under a tenant, its entry at the tail
    of the queue's ring.
]]
local TENANT_MARK = '{t}'

local function laneTenant(base, group)
  if compatMode() then return nil end
  return rcall('GET', base .. 'g:' .. group .. ':tenant') or nil
end

local function tenantRingKeys(base, tenant)
  local t = base .. 't:' .. tenant
  return t .. ':ring', t .. ':ringset'
end

local function laneRing(base, group, ringKey, ringSetKey)
  local tenant = laneTenant(base, group)
  if not tenant then return ringKey, ringSetKey, nil end
  local ring, set = tenantRingKeys(base, tenant)
  return ring, set, tenant
end

local function tenantJoin(ringKey, ringSetKey, tenant)
  local entry = TENANT_MARK .. tenant
  if rcall('SADD', ringSetKey, entry) == 1 then
    rcall('RPUSH', ringKey, entry)
    return 1
  end
  return 0
end

local function tenantVacate(ringKey, ringSetKey, tenantRing, tenant, atTail)
  if rcall('LLEN', tenantRing) > 0 then return end
  local entry = TENANT_MARK .. tenant
  if rcall('SREM', ringSetKey, entry) == 1 then
    if atTail then rcall('RPOP', ringKey) else rcall('LREM', ringKey, '0', entry) end
  end
end

local function ringLeft(ringKey, ringSetKey, ring, tenant)
  if tenant then tenantVacate(ringKey, ringSetKey, ring, tenant, true) end
end

local function ringNext(base, ringKey, ringSetKey)
  -- NOTE: a tenant entry whose ring list is empty is unreachable while the invariant holds; it is
  -- taken off (it is at the tail) and the rota moves on, at most 16 times a call.
  for _ = 0, 16 do
    local entry = rotateRing(ringKey)
    if not entry or string.byte(entry, 1) ~= 123 then return entry, ringKey, ringSetKey, nil end
    local tenant = string.sub(entry, 4)
    local ring, set = tenantRingKeys(base, tenant)
    local group = rotateRing(ring)
    if group then return group, ring, set, tenant end
    rcall('RPOP', ringKey)
    rcall('SREM', ringSetKey, entry)
  end
  return nil
end
