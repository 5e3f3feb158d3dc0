--[[
  bindLanes: on a sharded queue, bind lanes to the tenants that submits name for them, in the lanes'
  home shard (the shard a lane's own name hashes to). A lane under tenant T lives in T's shard (a
  tenant and all its lanes share one shard); its home keeps the binding, emq:{q}:bound (lane ->
  tenant), so that a submit naming no tenant, sent home, learns where the lane lives (see submit's
  ARGV[12] and submitMany's 'b'). The home's binding is the truth; the shards' records of lanes
  gone from a tenant (moveLane) follow it. shards() drops every binding.

  KEYS[1] bound  emq:{q}:bound (of the lanes' home shard)

  ARGV[1] base   'emq:{q}:' of that shard; must be the prefix of KEYS[1]
  then 4 values per lane: group, tenant, away ('1' when the tenant's shard is not this one), and
  from: '' to bind a lane bound to no tenant, or the tenant it is bound to now, to move it (its
  shard has checked that it holds no job and recorded it gone: moveLane 'out')

  Reply: { 'ok' } when every lane given is bound to its tenant now; with nothing written,
  { 'tenant', i, current } when lane i (1-based) is bound to another tenant (current) than `from`, or holds
  jobs here (pending, scheduled, active or dead, see laneHoldsJob) under none (current '') or, bound to
  none, under another than the one given (current: that one; a lane of this shard's own tenant whose
  binding was lost is bound again); { 'settings', i } when lane i has settings
  here (weight, ceiling, rate, pause, order) and its tenant's shard is another one: they would stay
  behind, read by nobody.
  Clock: none.
  Derived keys: the lane's pending set emq:{q}:g:<group>:pending, emq:{q}:gactive, emq:{q}:gparked
  (see laneParked) and the lane index
  emq:{q}:lanes (an entry without pending jobs is a lane with settings), from ARGV[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "laneHoldsJob"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base = ARGV[1]
if KEYS[1] ~= base .. 'bound' or (#ARGV - 1) % 4 ~= 0 then
  return redis.error_reply('ERR echomq: bindLanes arguments do not match its keys')
end
local fresh = {}
for o = 2, #ARGV, 4 do
  local group, tenant, away, from = ARGV[o], ARGV[o + 1], ARGV[o + 2] == '1', ARGV[o + 3]
  local item = (o + 2) / 4
  if group == '' or tenant == '' then
    return redis.error_reply('ERR echomq: bindLanes needs a group and a tenant for every lane')
  end
  local current = rcall('HGET', KEYS[1], group)
  if current and current ~= tenant and current ~= from then return { 'tenant', item, current } end
  if current and current ~= tenant then
    fresh[group] = tenant
  elseif not current and fresh[group] == nil then
    -- NOTE: a lane whose jobs are here (its tenant's shard is its home) under this very tenant is
    -- bound to it: its binding was lost.
    if laneHoldsJob(base, group) then
      local own = not away and rcall('GET', base .. 'g:' .. group .. ':tenant')
      if own ~= tenant then return { 'tenant', item, own or '' } end
    end
    if away and rcall('ZSCORE', base .. 'lanes', group) then return { 'settings', item } end
    fresh[group] = tenant
  elseif fresh[group] and fresh[group] ~= tenant then
    return { 'tenant', item, fresh[group] }
  end
end
for group, tenant in pairs(fresh) do rcall('HSET', KEYS[1], group, tenant) end
return { 'ok' }
