--[[
  moveLane: on a sharded queue, one shard's half of a lane moving from one tenant to another (a
  lane takes another tenant while it holds no job; see bindLanes). Mode 'out', in the shard of the
  tenant the lane leaves: refuses while the lane holds jobs there (pending, scheduled, active or
  dead: laneHoldsJob), else records
  the lane as gone from that tenant (emq:{q}:unbound, lane -> tenant), so that a submit naming that
  tenant for the lane, sent here by a process that has not heard of the move, is told to ask the
  lane's home again (see submit's ARGV[12], submitMany's 'b'). Mode 'in', in the shard of the tenant
  the lane joins, once its home binds it: the lane is that tenant's here again (the record goes).
  Mode 'join', in the shard of the lane's tenant, by a change of the shard count that has just
  copied the lane's settings there (it holds no job): the lane is adopted by the tenant there, as a
  lane with a setting keeps its tenant (laneRing's adopt).
  Mode 'release', in the shard of the tenant a lane is bound to, by a submit that named no tenant
  and found the lane there holding no job and no tenant (it let its tenant go with its last job and
  has no setting): records the lane gone from that tenant, as 'out' does, before its home drops the
  binding (bindLanes with no tenant), so that the lane becomes one of no tenant in its home, as on
  an unsharded queue. Refuses while the lane holds a job or has a tenant here again.

  KEYS[1] unbound  emq:{q}:unbound (of the shard)

  ARGV[1] base    'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] group   the lane
  ARGV[3] tenant  the tenant it leaves ('out', 'release') or joins ('in', 'join'); '' for 'check'
  ARGV[4] mode    'out', 'in', 'join' or 'release'; or 'check': nothing written, the reply is
                  { 'check', held ('1' when the lane holds a job here, else '0'), the lane's
                  tenant here ('' none) } (see LanePlacement.check)

  Reply: { 'ok' }; or, with nothing written, { 'held' } when mode 'out', 'join' or 'release' finds
  the lane holding jobs (or 'release' finds it under a tenant).
  Clock: none.
  Derived keys: the lane's pending set emq:{q}:g:<group>:pending, emq:{q}:gactive and
  emq:{q}:gparked (see laneParked); with 'join', the lane's tenant emq:{q}:g:<group>:tenant, the
  tenant's lanes, emq:{q}:tenants and emq:{q}:meta (see laneRing's adopt); from ARGV[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "laneHoldsJob"
--- @include "laneRing"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group, tenant, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if KEYS[1] ~= base .. 'unbound' or group == '' or (tenant == '' and mode ~= 'check')
   or (mode ~= 'out' and mode ~= 'in' and mode ~= 'join' and mode ~= 'release' and mode ~= 'check') then
  return redis.error_reply('ERR echomq: moveLane arguments do not match its keys')
end
if mode == 'check' then
  return { 'check', laneHoldsJob(base, group) and '1' or '0', rcall('GET', base .. 'g:' .. group .. ':tenant') or '' }
end
if mode == 'join' then
  if laneHoldsJob(base, group) then return { 'held' } end
  tenantOps().adopt(base, group, tenant, base .. 'ringset', nil, true)
  return { 'ok' }
end
if mode == 'in' then
  if rcall('HGET', KEYS[1], group) == tenant then rcall('HDEL', KEYS[1], group) end
  return { 'ok' }
end
if laneHoldsJob(base, group) then return { 'held' } end
if mode == 'release' and rcall('EXISTS', base .. 'g:' .. group .. ':tenant') == 1 then return { 'held' } end
rcall('HSET', KEYS[1], group, tenant)
return { 'ok' }
