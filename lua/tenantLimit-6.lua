--[[
  tenantLimit: set or clear a tenant's ceiling on its active jobs, summed over its lanes. A tenant
  at its ceiling is off the queue's ring (its lanes stay on its own ring) and rejoins the moment
  one of its jobs ends below it; a claim never serves past it (see laneRing). The tenant's active
  count is kept only while it has a limit: a limit set where none was counts its active jobs from
  its lanes (O(the fewer of the tenant's lanes and the queue's lanes with active jobs), see
  laneRing's count), and clearing the limit drops the count.

  KEYS[1] ring     emq:{q}:ring
  KEYS[2] ringset  emq:{q}:ringset
  KEYS[3] wake     emq:{q}:wake
  KEYS[4] info     emq:{q}:t:<tenant>:info
  KEYS[5] gactive  emq:{q}:gactive
  KEYS[6] tlanes   emq:{q}:t:<tenant>:lanes

  ARGV[1] base    'emq:{q}:'
  ARGV[2] tenant  tenant name
  ARGV[3] limit   integer 1..1000000, or '' to remove the ceiling

  Reply: 1 when the tenant's entry joined the queue's ring, -1 when it left, 0 otherwise.
  Clock: none.
  Derived keys: the tenant's ring emq:{q}:t:<tenant>:ring (its length) and emq:{q}:meta (field
  tenantSet, see laneRing), from ARGV[1] pinned to KEYS[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "laneRing"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, tenant, rawLimit = ARGV[1], ARGV[2], ARGV[3]
local limit = tonumber(rawLimit)
if KEYS[1] ~= base .. 'ring' or KEYS[4] ~= base .. 't:' .. tenant .. ':info' or KEYS[5] ~= base .. 'gactive'
   or KEYS[6] ~= base .. 't:' .. tenant .. ':lanes' then
  return redis.error_reply('ERR echomq: tenantLimit arguments do not match its keys')
end
if rawLimit ~= '' and (not limit or limit < 1 or limit > 1000000 or limit % 1 ~= 0) then
  return redis.error_reply('ERR echomq: tenantLimit must be an integer from 1 to 1000000, or none')
end
if limit then
  tenantOps().marked(base)
  if rcall('HSET', KEYS[4], 'limit', string.format('%d', limit)) == 1 then
    -- NOTE: the field is new (no limit until now), so nothing kept the count: it starts from the lanes.
    local active = tenantOps().count(base, tenant, KEYS[5])
    if active > 0 then rcall('HSET', KEYS[4], 'active', string.format('%d', active)) else rcall('HDEL', KEYS[4], 'active') end
  end
else
  rcall('HDEL', KEYS[4], 'limit', 'active')
end
return tenantOps().sync(base, tenant, KEYS[1], KEYS[2], KEYS[3])
