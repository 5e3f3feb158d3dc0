--- @include "compatMode"
--- @include "pushWake"
--- @include "ringOps"
--- @include "laneHoldsJob"
--- @include "laneUnbind"
--[[
  The two levels of the ring, and the one place that knows them.
  A lane under no tenant lives on the queue's ring (emq:{q}:ring, membership in emq:{q}:ringset).
  A lane under tenant T lives on T's own ring, emq:{q}:t:<T>:ring (membership in
  emq:{q}:t:<T>:ringset), and the queue's ring holds T once, as the entry '{t}' .. T, while T is
  open (not paused, under its limit) and its ring list is not empty; its lanes stay on its ring
  meanwhile. Group names cannot hold '{', so an entry that opens with it is a tenant.
  A lane's tenant is the string emq:{q}:g:<group>:tenant (a lane key, like its pending set); the
  lanes of T that hold jobs or settings are the set emq:{q}:t:<T>:lanes (and the tenants that have
  such lanes the set emq:{q}:tenants, derived from base as meta is); T's settings and active
  count are the hash emq:{q}:t:<T>:info (weight, limit, active, paused, until, reason). The active
  count is kept only while T has a limit (nothing else reads it): tenantLimit sets it from T's lanes
  (count) when a limit is set where none was, and drops it with the limit, so a tenant without one
  pays no HINCRBY per claim or ack. Every job
  submitted naming T or served under T carries it in its row, so the ack that ends it knows whose
  active count drops. A lane keeps its tenant while it holds a scheduled or dead job (laneParked),
  so such a job comes back to a lane under T; a row that predates that count and finds its lane
  forgotten puts the lane back under T (giveBack). The row field is `held`: one character,
  '1' when the job was served under a queue ceiling (see queueRoom) else '0', then the tenant ('' for
  none); a row without it has neither. One field, so an ack reads one more field, not two. Compat mode has no tenants: nothing here is read.
  Field `tenants` of emq:{q}:meta says that the queue has ever had a tenant (set by the first
  adopt, never cleared); a script asks once (laneRing), so a queue without tenants reads no lane's
  tenant (the meta key is derived from base, as pushWake derives it from the wake key). Field
  `tenantSet` says that a tenant of the queue has ever had a setting (weight, limit or pause: set by
  tenantWeight, tenantLimit and pauseTenant through .marked, never cleared); until then every tenant
  has weight 1, no limit and no pause, so a claim reads no tenant's settings and an ack none either
  (a script asks once: state and release; claims learn it from dueWork's read of meta).

  laneRing(base, group, ringKey, ringSetKey, known?) -> ring, ringset, tenant: where the lane lives
    (`known`: the lane's tenant as the caller read it in this script, '' for none, spared a GET)
  (The rotation at both levels, ringNext, is the claims' half of this, in ringNext.lua.)
  tenantOps() -> the table of what only a queue with tenants needs (below).
    .state(base, T) -> { weight, limit (nil: none), active (kept only under a limit), paused }; .open(t): may it be served
    .marked(base): T has (or had) a setting, so from now on every script reads the tenants' settings
    .count(base, T, gactiveKey) -> T's active jobs, summed over its lanes (O(the fewer of T's lanes and the
      queue's lanes with active jobs): tenantLimit only)
    .join(base, ringKey, ringSetKey, T, t?, filled?) -> 1 when T's entry joined the queue's ring
    .sync(base, T, ringKey, ringSetKey, wakeKey) -> 1 joined, -1 left, 0 neither: T's entry on the
      queue's ring exactly when T is open and its ring list not empty (operator paths: LREM)
    .vacate(base, ringKey, ringSetKey, ring, T, atTail): T's entry leaves the queue's ring when its ring
      list is empty (atTail: a claim has just rotated it to the tail, so RPOP; else LREM)
    .served(base, ringKey, ringSetKey, ring, T, t, n, laneLeft, work): a claim served n jobs of the lane
      ringNext gave (laneLeft: the lane then left `ring`; work: what virtual time charges them, see serveLane): T's active count rises (under a limit), and its
      entry (at the tail) leaves the queue's ring with its last lane or at its limit: then it answers true
    .release(base, T, n, ringKey, ringSetKey, wakeKey): n jobs of T stopped being active; under a
      limit its count drops, and a tenant that was at its limit rejoins the queue's ring
    .conflict(base, group, T, gactiveKey, known?) -> the lane's tenant ('' for none) when naming T for the
      lane must be refused (it holds jobs under another tenant or none: laneHoldsJob), else nil
    .adopt(base, group, T, ringSetKey, known?, fresh?): T becomes the lane's tenant (`fresh`: the lane
      index does not name the lane); a lane its rate parked (kept in a ring set while off the ring)
      moves to T's set with it, so its timer still finds it
    .giveBack(base, jobKey, group, T, gactiveKey, ringSetKey): a job whose row names T goes back into
      its lane: a lane that holds no job takes T back; one that holds jobs keeps its own tenant, and
      the row is made to name that one (so a row never names a tenant its lane does not have)
  NOTE: every `local function` of a script costs a closure on every call (about 540 server
  instructions each, more with the table write of a `function T.x`), so the tenant helpers are built
  on first use: a queue without tenants pays for laneRing and tenantOps alone (and claims for
  ringNext); a claim or an ack under a tenant builds the six it uses, and the rest (marked, sync,
  count, conflict, adopt, giveBack) are built on the first read of one of them.
]]
local TENANT_MARK = '{t}'
--- @shared plainState: every tenant's state while no tenant of the queue has a setting; nothing writes it (served writes a state's active count only under a limit)
local plainState = { weight = 1, active = 0, paused = false }
-- nil: not read yet in this script; false: no tenant of the queue has ever had a setting.
--- @per-call tenantSettings
local tenantSettings
--- @per-call tenantsAdded: the tenants this call has put in emq:{q}:tenants (see adopt)
local tenantsAdded
--- @per-call tenantsJoined: a table while a submit joins lanes (see submitMany): the tenants whose entry it has seen to
local tenantsJoined

local HELD_TEXTS_MAX = 4096
--- @shared heldTexts, heldTextCount: per tenant, the `held` of its rows on a queue without a ceiling ('0' .. tenant); follows from the tenant alone
local heldTexts, heldTextCount = {}, 0

--[[ The row field `held` of a job served under `tenant` (see laneRing), the common one remembered. ]]
local function heldOf(tenant, queueLimited)
  if queueLimited then return '1' .. (tenant or '') end
  if not tenant then return '0' end
  local text = heldTexts[tenant]
  if not text then
    if heldTextCount >= HELD_TEXTS_MAX then heldTexts, heldTextCount = {}, 0 end
    text = '0' .. tenant
    heldTexts[tenant] = text
    heldTextCount = heldTextCount + 1
  end
  return text
end

--- @shared heldTenants, heldTenantCount: per row field `held` naming a tenant, that tenant; follows from the text alone
local heldTenants, heldTenantCount = {}, 0

--[[
  The tenant a row's `held` names (see above), false when it names none (no `held`, or its first
  character alone); remembered, so an ack under a tenant makes no string of it.
]]
local function tenantOfHeld(held)
  if not held or #held < 2 then return false end
  local tenant = heldTenants[held]
  if not tenant then
    if heldTenantCount >= HELD_TEXTS_MAX then heldTenants, heldTenantCount = {}, 0 end
    tenant = string.sub(held, 2)
    heldTenants[held] = tenant
    heldTenantCount = heldTenantCount + 1
  end
  return tenant
end

local TENANT_KEYS_MAX = 4096
--- @shared tenantKeyCache, tenantKeyCount: per base, per tenant (by its name and by its ring entry): its keys, which follow from the two alone
local tenantKeyCache, tenantKeyCount = {}, 0

--[[
  tenantKeys(base, T, entry?) -> { name, ring, ringset, lanes, info, entry } of T, or of the tenant
  whose ring entry is `entry` ('{t}' .. T; T then nil): built once and kept from call to call in
  the function library (per call under EVALSHA), so a lane joining T's ring, or adopted by T, and a
  claim stepping T's ring make no string of them (a concatenation costs about 700 instructions).
  A name and an entry never meet: group rules keep '{' out of a tenant's name.
]]
local function tenantKeys(base, tenant, entry)
  local byName = tenantKeyCache[base]
  if not byName then
    byName = {}
    tenantKeyCache[base] = byName
  end
  local keys = byName[entry or tenant]
  if not keys then
    if tenantKeyCount >= TENANT_KEYS_MAX then
      tenantKeyCache, tenantKeyCount, byName = {}, 0, {}
      tenantKeyCache[base] = byName
    end
    if entry then tenant = string.sub(entry, 4) end
    local t = base .. 't:' .. tenant
    keys = { name = tenant, ring = t .. ':ring', ringset = t .. ':ringset', lanes = t .. ':lanes', info = t .. ':info', entry = entry or TENANT_MARK .. tenant }
    byName[entry or tenant] = keys
    tenantKeyCount = tenantKeyCount + 1
  end
  return keys
end

--[[
  queueTenanted(base) -> whether any lane of the queue can have a tenant: never in compat mode,
  else once the queue has had one (meta field `tenants`, read once a script: see fairMode).
]]
local function queueTenanted(base)
  if compatMode() then return false end
  if anyTenant == nil then fairMode(base) end
  return anyTenant
end

local function laneRing(base, group, ringKey, ringSetKey, known)
  if compatMode() then return ringKey, ringSetKey, nil end
  local tenant = known
  if tenant == nil then
    if not queueTenanted(base) then return ringKey, ringSetKey, nil end
    tenant = rcall('GET', base .. 'g:' .. group .. ':tenant')
  end
  if not tenant or tenant == '' then return ringKey, ringSetKey, nil end
  local keys = tenantKeys(base, tenant)
  return keys.ring, keys.ringset, tenant
end

--[[
  laneTenants(base, groups, into) -> into: group -> the lane's tenant ('' for none) for each of
  `groups` (`into` a new table when nil): one MGET per 1,000 lanes (a GET each would cost a call
  each), and none at all on a queue that has never had a tenant.
]]
local function laneTenants(base, groups, into)
  local out = into or {}
  if not queueTenanted(base) then
    for i = 1, #groups do out[groups[i]] = '' end
    return out
  end
  for first = 1, #groups, 1000 do
    local last = math.min(#groups, first + 999)
    local keys = {}
    for i = first, last do keys[#keys + 1] = base .. 'g:' .. groups[i] .. ':tenant' end
    local tenants = rcall('MGET', unpack(keys))
    for i = first, last do out[groups[i]] = tenants[i - first + 1] or '' end
  end
  return out
end

--- @shared tenantFns: its functions take what a call read as arguments or per-call upvalues
local tenantFns
local function tenantOps()
  if tenantFns then return tenantFns end
  local T = {}
  tenantFns = T

  function T.state(base, tenant)
    if tenantSettings == nil then tenantSettings = rcall('HEXISTS', base .. 'meta', 'tenantSet') == 1 end
    -- NOTE: one table, not one a claim step (a table and its three fields, with their share of the
    -- GC, cost a step about 2k instructions).
    if not tenantSettings then return plainState end
    local r = rcall('HMGET', tenantKeys(base, tenant).info, 'weight', 'limit', 'active', 'paused')
    return { weight = tonumber(r[1]) or 1, limit = tonumber(r[2]), active = tonumber(r[3]) or 0, paused = r[4] and true or false }
  end

  function T.open(t)
    return not t.paused and not (t.limit and t.active >= t.limit)
  end

  function T.join(base, ringKey, ringSetKey, tenant, t, filled)
    -- NOTE: the entry is in the ring set exactly while it is on the ring, so a tenant already on it
    -- costs this one SADD; only a tenant joining is read (open?) and its ring counted (unless
    -- `filled`: a lane has just joined it).
    -- NOTE: a submit only adds work, so a tenant whose entry it has seen to (on the ring, or kept
    -- off it: paused or at its limit) needs nothing more for its other lanes in the same call.
    if tenantsJoined then
      if tenantsJoined[tenant] then return 0 end
      tenantsJoined[tenant] = true
    end
    local keys = tenantKeys(base, tenant)
    local entry = keys.entry
    if rcall('SADD', ringSetKey, entry) == 0 then return 0 end
    if not T.open(t or T.state(base, tenant))
       or (not filled and (ringPlain and rcall('LLEN', keys.ring) or ringOps().len(base, keys.ring)) == 0) then
      rcall('SREM', ringSetKey, entry)
      return 0
    end
    if ringPlain then rcall('RPUSH', ringKey, entry) else ringOps().push(base, ringKey, entry) end
    return 1
  end

  function T.vacate(base, ringKey, ringSetKey, ring, tenant, atTail)
    if (ringPlain and rcall('LLEN', ring) or ringOps().len(base, ring)) > 0 then return end
    local entry = tenantKeys(base, tenant).entry
    if rcall('SREM', ringSetKey, entry) == 1 then
      if atTail and ringPlain then
        rcall('RPOP', ringKey)
      elseif atTail then
        ringOps().drop(base, ringKey, entry)
      else
        ringOps().remove(base, ringKey, entry)
      end
    end
  end

  function T.served(base, ringKey, ringSetKey, ring, tenant, t, n, laneLeft, work)
    -- NOTE: the tenant's keys only where a branch needs them (most claims take none).
    if n > 0 and t.limit then t.active = rcall('HINCRBY', tenantKeys(base, tenant).info, 'active', string.format('%d', n)) end
    -- NOTE: in virtual time the tenant's entry is charged at its own level (see fairOps).
    local start
    if work and work > 0 then start = fairOps().charge(base, ringKey, tenantKeys(base, tenant).entry, work / t.weight) end
    if (laneLeft and (ringPlain and rcall('LLEN', ring) or ringOps().len(base, ring)) == 0) or (t.limit and t.active >= t.limit) then
      local entry = tenantKeys(base, tenant).entry
      if rcall('SREM', ringSetKey, entry) == 1 then
        if ringPlain then rcall('RPOP', ringKey) else ringOps().drop(base, ringKey, entry, start) end
      end
      return true
    end
    return false
  end

  function T.release(base, tenant, n, ringKey, ringSetKey, wakeKey)
    if tenantSettings == nil then tenantSettings = rcall('HEXISTS', base .. 'meta', 'tenantSet') == 1 end
    if not tenantSettings then return end
    local key = tenantKeys(base, tenant).info
    local r = rcall('HMGET', key, 'limit', 'paused')
    local limit = tonumber(r[1])
    if not limit then return end
    local left = rcall('HINCRBY', key, 'active', string.format('%d', -n))
    if left <= 0 then
      rcall('HDEL', key, 'active')
      left = 0
    end
    if left < limit and left + n >= limit and not r[2]
       and T.join(base, ringKey, ringSetKey, tenant, { limit = limit, active = left, paused = false }) == 1 then
      pushWake(wakeKey)
    end
  end

  -- NOTE: what the operator's scripts, the submits and the hand-backs use is built on the first
  -- read of one of them (this __index), so a claim or an ack builds seven closures, not thirteen.
  setmetatable(T, { __index = function(_, name)
    setmetatable(T, nil)
    function T.marked(base)
      rcall('HSET', base .. 'meta', 'tenantSet', '1')
      tenantSettings = true
    end

    function T.sync(base, tenant, ringKey, ringSetKey, wakeKey)
      if T.join(base, ringKey, ringSetKey, tenant) == 1 then
        pushWake(wakeKey)
        return 1
      end
      local keys = tenantKeys(base, tenant)
      local entry = keys.entry
      if (not T.open(T.state(base, tenant)) or (ringPlain and rcall('LLEN', keys.ring) or ringOps().len(base, keys.ring)) == 0)
         and rcall('SREM', ringSetKey, entry) == 1 then
        ringOps().remove(base, ringKey, entry)
        return -1
      end
      return 0
    end

    function T.count(base, tenant, gactiveKey)
      local lanesKey = tenantKeys(base, tenant).lanes
      local sum = 0
      -- NOTE: from the smaller side: the queue's lanes with active jobs (an ack deletes a lane's
      -- field of gactive at zero, so they are bounded by the jobs leased) when they are fewer than
      -- the tenant's lanes, each asked whether it is the tenant's; a limit set on a tenant of
      -- 100,000 lanes took 49 ms counting its lanes.
      if rcall('HLEN', gactiveKey) < rcall('SCARD', lanesKey) then
        local flat = rcall('HGETALL', gactiveKey)
        for i = 1, #flat, 2000 do
          local groups = {}
          for j = i, math.min(#flat, i + 1999), 2 do groups[#groups + 1] = flat[j] end
          -- NOTE: pcall: an ACL user set up before SMISMEMBER was used (0.2's rules) is refused it.
          local hits = redis.pcall('SMISMEMBER', lanesKey, unpack(groups))
          if type(hits) ~= 'table' or hits.err then
            hits = {}
            for j = 1, #groups do hits[j] = rcall('SISMEMBER', lanesKey, groups[j]) end
          end
          for j = 1, #groups do
            if hits[j] == 1 then sum = sum + (tonumber(flat[i + 2 * j - 1]) or 0) end
          end
        end
        return sum
      end
      local lanes = rcall('SMEMBERS', lanesKey)
      for i = 1, #lanes, 1000 do
        local counts = rcall('HMGET', gactiveKey, unpack(lanes, i, math.min(#lanes, i + 999)))
        for j = 1, #counts do sum = sum + (tonumber(counts[j]) or 0) end
      end
      return sum
    end

    function T.conflict(base, group, tenant, gactiveKey, known)
      -- NOTE: `known`: the lane's tenant as the caller read it ('' for none), spared a second GET.
      local current = known
      if current == nil then current = select(3, laneRing(base, group)) or '' end
      if current == '' then current = nil end
      if current == tenant then return nil end
      if laneHoldsJob(base, group, gactiveKey) then
        return current or ''
      end
      return nil
    end

    function T.adopt(base, group, tenant, ringSetKey, known, fresh)
      local key = base .. 'g:' .. group .. ':tenant'
      -- NOTE: `known`: the lane's tenant as the caller read it in this script ('' for none), spared a GET.
      local current
      if known == nil then current = rcall('GET', key) elseif known ~= '' then current = known else current = false end
      if current == tenant then return end
      if not anyTenant then
        rcall('HSET', base .. 'meta', 'tenants', '1')
        anyTenant = true
      end
      local keys = tenantKeys(base, tenant)
      rcall('SET', key, tenant)
      rcall('SADD', keys.lanes, group)
      -- NOTE: the set of tenants gains each tenant once per call, however many lanes it adopts.
      tenantsAdded = tenantsAdded or {}
      if not tenantsAdded[tenant] then
        rcall('SADD', base .. 'tenants', tenant)
        tenantsAdded[tenant] = true
      end
      local from = ringSetKey
      if current then
        from = tenantKeys(base, current).ringset
        if laneLeavesTenant(base, group, current) then tenantsAdded[current] = nil end
      end
      -- NOTE: a `fresh` lane (the lane index does not name it: no job, no setting) is on no ring set:
      -- a lane is there only while it has work or its rate parked it, and a rate is a setting.
      if not (fresh and not current) and rcall('SREM', from, group) == 1 then rcall('SADD', keys.ringset, group) end
      -- NOTE: what the lane owed stays in its old ring's owed set (see fairOps), in that ring's
      -- virtual time, which its new ring neither shares nor reads.
    end

    function T.giveBack(base, jobKey, group, tenant, gactiveKey, ringSetKey)
      if compatMode() then return end
      local current = T.conflict(base, group, tenant, gactiveKey)
      if not current then
        T.adopt(base, group, tenant, ringSetKey)
      elseif current == '' then
        rcall('HDEL', jobKey, 'held')
      else
        rcall('HSET', jobKey, 'held', '0' .. current)
      end
    end
    return rawget(T, name)
  end })

  return T
end
