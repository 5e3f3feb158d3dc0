--[[
  bindLanes: on a sharded queue, bind lanes to the tenants that submits name for them, in the lanes'
  home shard (the shard a lane's own name hashes to). A lane under tenant T lives in T's shard (a
  tenant and all its lanes share one shard); its home keeps the binding, emq:{q}:bound (lane ->
  tenant), so that a submit naming no tenant, sent home, learns where the lane lives (see submit's
  ARGV[12] and submitMany's 'b'). The home's binding is the truth; the shards' records of lanes
  gone from a tenant (moveLane) follow it. shards() moves each binding to the lane's home under the new count (setShards mode 'bindings').

  KEYS[1] bound  emq:{q}:bound (of the lanes' home shard)

  ARGV[1] base   'emq:{q}:' of that shard; must be the prefix of KEYS[1]
  then 5 values per lane: group, tenant, away ('1' when the tenant's shard is not this one), from:
  '' to bind a lane bound to no tenant, or the tenant it is bound to now, to move it (its shard has
  checked that it holds no job and recorded it gone: moveLane 'out'), and expect: '' for any, or
  the binding's version (below) as the caller read it before it began. Tenant '' with `from`:
  unbind the lane (its tenant's shard has recorded it released: moveLane 'release'). Tenant equal to
  `from` and to the binding, with `expect`: bind it again, only raising its version (a submit naming
  that tenant clears the record of a move or release that has not reached the home, see
  LanePlacement.learn: any such move or release then finds the binding changed and stops).
  Versions: emq:{q}:boundv (lane -> the version of its binding: a number drawn from the hash's own
  counter, field '{seq}' (a lane's name never holds '{'), by every write of the binding here, so
  never the same twice; dropped with the binding), so a move or release that read the binding, then
  spent round trips in other shards, writes only if nothing changed it meanwhile.

  ARGV[2] '?' (then the lanes, 5 values each, from ARGV[3]): check only, for a call that must refuse
  before it writes anything (LanePlacement.check): nothing is written, and the reply is { 'check',
  then per lane: verdict, binding ('' none), own (the lane's tenant here, '' none) }, verdict 'ok'
  (bound to the tenant given, or free to be bound to it), 'move' (bound to another: its shard says
  whether it holds jobs, moveLane 'check'), or 'refused' (bound to none, and holding jobs here
  under another tenant or none).

  Reply: { 'ok' } when every lane given is bound to its tenant now; with nothing written,
  { 'changed', i } when lane i's version is not `expect`;
  { 'tenant', i, current } when lane i (1-based) is bound to another tenant (current) than `from`, or holds
  jobs here (pending, scheduled, active or dead, see laneHoldsJob) under none (current '') or, bound to
  none, under another than the one given (current: that one; a lane of this shard's own tenant whose
  binding was lost is bound again); { 'settings', i } when lane i has settings
  here (weight, ceiling, rate, pause, order) and its tenant's shard is another one: they would stay
  behind, read by nobody.
  Clock: none.
  Derived keys: emq:{q}:boundv (the versions), the lane's pending set emq:{q}:g:<group>:pending, emq:{q}:gactive, emq:{q}:gparked
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
-- NOTE: '?' after the base: check only (see the header), nothing written.
if KEYS[1] == base .. 'bound' and ARGV[2] == '?' and (#ARGV - 2) % 5 == 0 then
  local out = { 'check' }
  for o = 3, #ARGV, 5 do
    local group, tenant, away = ARGV[o], ARGV[o + 1], ARGV[o + 2] == '1'
    local current = rcall('HGET', KEYS[1], group)
    local own = rcall('GET', base .. 'g:' .. group .. ':tenant') or ''
    local verdict = 'ok'
    if current and current ~= tenant then
      verdict = 'move'
    elseif not current and laneHoldsJob(base, group) and (away or own ~= tenant) then
      verdict = 'refused'
    end
    out[#out + 1] = verdict
    out[#out + 1] = current or ''
    out[#out + 1] = own
  end
  return out
end
if KEYS[1] ~= base .. 'bound' or (#ARGV - 1) % 5 ~= 0 then
  return redis.error_reply('ERR echomq: bindLanes arguments do not match its keys')
end
local versions = base .. 'boundv'
local fresh, again = {}, {}
for o = 2, #ARGV, 5 do
  local group, tenant, away, from, expect = ARGV[o], ARGV[o + 1], ARGV[o + 2] == '1', ARGV[o + 3], ARGV[o + 4]
  local item = (o + 3) / 5
  if group == '' or (tenant == '' and from == '') then
    return redis.error_reply('ERR echomq: bindLanes needs a group and a tenant for every lane')
  end
  if expect ~= '' and (rcall('HGET', versions, group) or '0') ~= expect then return { 'changed', item } end
  local current = rcall('HGET', KEYS[1], group)
  if current and current ~= tenant and current ~= from then return { 'tenant', item, current } end
  if tenant == '' then
    if current ~= from then return { 'tenant', item, current or '' } end
    fresh[group] = false
  elseif current and current ~= tenant then
    fresh[group] = tenant
  elseif current then
    if expect ~= '' then again[#again + 1] = group end
  elseif fresh[group] == nil then
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
-- NOTE: one number a call, for every binding it writes (a call writes a lane once).
local version
for group, tenant in pairs(fresh) do
  if tenant then
    version = version or rcall('HINCRBY', versions, '{seq}', '1')
    rcall('HSET', KEYS[1], group, tenant)
    rcall('HSET', versions, group, version)
  else
    rcall('HDEL', KEYS[1], group)
    rcall('HDEL', versions, group)
  end
end
for i = 1, #again do
  version = version or rcall('HINCRBY', versions, '{seq}', '1')
  rcall('HSET', versions, again[i], version)
end
return { 'ok' }
