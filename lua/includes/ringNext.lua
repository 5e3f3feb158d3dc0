--- @include "laneRing"
--[[
  ringNext(base, ringKey, ringSetKey, turn?) -> group, ring, ringset, tenant, t (T's state): one step of
  the rota at both levels (see laneRing): rotate the queue's ring; on a tenant's entry, rotate that
  tenant's ring and name its lane (in virtual time: the smallest starts, see ringOps). nil when
  nothing is on the ring. ringOps .drop (RPOP while ringPlain) then takes the lane off `ring`, and
  under a tenant its entry '{t}' .. T off the queue's ring. Only the claims include it.
  `turn` ({ ring, set, tenant, t }): a tenant whose step served nothing (its lane was parked by its
  rate, or healed off the ring, or had no row) and that is still on the queue's ring; its turn is not
  over (fairness 6), so its own ring steps again first (its entry is already at the queue ring's tail),
  and only when that ring is empty does the queue's ring step.
]]
--- @per-call strByte: the library's top level cannot read `string` when it loads
local strByte = string.byte

--[[ One step of a ring: LMOVE while it is a plain list (see fairMode), else ringOps .step. ]]
local function stepRing(base, ring)
  if ringPlain then return rotateRing(ring) end
  return ringOps().step(base, ring)
end

--[[
  The tenant, ring and ring set of a tenant's entry '{t}' .. T of base's ring, from the keys
  laneRing keeps per tenant (tenantKeys, found by the entry itself): a claim that steps a tenant's
  ring then makes no string of them (a string.sub and two concatenations, about 2k instructions).
]]
local function tenantRingOf(base, entry)
  local keys = tenantKeys(base, nil, entry)
  return keys.name, keys.ring, keys.ringset
end

--[[
  The tenant step of ringNext: `entry` is a tenant's, just rotated to the tail. The common case
  (the tenant's keys already kept, no tenant of the queue with a setting, plain rings) reads no
  state and makes no call but the LMOVE: a claim under tenants pays it on every job, and each Lua
  call of the general path (keys, state, open, step) cost about 400 instructions.
]]
local function tenantStep(base, ringKey, ringSetKey, entry)
  local byEntry = tenantKeyCache[base]
  local keys = byEntry and byEntry[entry]
  if keys and tenantSettings == false and ringPlain then
    local group = rotateRing(keys.ring)
    if group then return group, keys.ring, keys.ringset, keys.name, plainState end
  else
    local T = tenantOps()
    local tenant, ring, set = tenantRingOf(base, entry)
    local t = T.state(base, tenant)
    local group = T.open(t) and stepRing(base, ring)
    if group then return group, ring, set, tenant, t end
  end
  if ringPlain then rcall('RPOP', ringKey) else ringOps().drop(base, ringKey, entry) end
  rcall('SREM', ringSetKey, entry)
  return nil
end

local function ringNext(base, ringKey, ringSetKey, turn)
  if turn then
    local group = stepRing(base, turn.ring)
    if group then return group, turn.ring, turn.set, turn.tenant, turn.t end
  end
  -- NOTE: a tenant entry with an empty ring list, or of a tenant that is not open, is unreachable
  -- while the invariant holds; it is taken off (it is at the tail) and the rota moves on, at most
  -- 16 times a call. A lane's entry (the common case) costs the LMOVE and one byte compared.
  local entry = stepRing(base, ringKey)
  if not entry or strByte(entry) ~= 123 then return entry, ringKey, ringSetKey end
  for _ = 0, 16 do
    local group, ring, set, tenant, t = tenantStep(base, ringKey, ringSetKey, entry)
    if group then return group, ring, set, tenant, t end
    entry = stepRing(base, ringKey)
    if not entry or strByte(entry) ~= 123 then return entry, ringKey, ringSetKey end
  end
  return nil
end
