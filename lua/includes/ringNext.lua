--- @include "laneRing"
--- @include "rotateRing"
--[[
  ringNext(base, ringKey, ringSetKey) -> group, ring, ringset, tenant, t (T's state): one step of the
  rota at both levels (see laneRing): rotate the queue's ring; on a tenant's entry, rotate that
  tenant's ring and name its lane. nil when nothing is on the ring. The lane is then at the tail of
  `ring` and, under a tenant, its entry at the tail of the queue's ring. Only the claims include it.
]]
local strByte = string.byte

--[[ The tenant step of ringNext, off its hot path: `entry` is a tenant's, just rotated to the tail. ]]
local function tenantStep(base, ringKey, ringSetKey, entry)
  local T = tenantOps()
  local tenant = string.sub(entry, 4)
  local t = T.state(base, tenant)
  local ring = base .. 't:' .. tenant .. ':ring'
  local group = T.open(t) and rotateRing(ring)
  if group then return group, ring, ring .. 'set', tenant, t end
  rcall('RPOP', ringKey)
  rcall('SREM', ringSetKey, entry)
  return nil
end

local function ringNext(base, ringKey, ringSetKey)
  -- NOTE: a tenant entry with an empty ring list, or of a tenant that is not open, is unreachable
  -- while the invariant holds; it is taken off (it is at the tail) and the rota moves on, at most
  -- 16 times a call. A lane's entry (the common case) costs the LMOVE and one byte compared.
  local entry = rotateRing(ringKey)
  if not entry or strByte(entry) ~= 123 then return entry, ringKey, ringSetKey end
  for _ = 0, 16 do
    local group, ring, set, tenant, t = tenantStep(base, ringKey, ringSetKey, entry)
    if group then return group, ring, set, tenant, t end
    entry = rotateRing(ringKey)
    if not entry or strByte(entry) ~= 123 then return entry, ringKey, ringSetKey end
  end
  return nil
end
