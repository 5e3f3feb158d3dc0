--[[
  tenantWeight: set a tenant's share of the queue's ring: with weight w, a wclaim that lands on the
  tenant's entry takes w turns of the tenant's own ring (each a lane's weighted turn); a claim takes
  one. 1 is the default, so setting 1 removes the field. A weight never parks a tenant, so no ring
  is touched.

  KEYS[1] ring    emq:{q}:ring               (pins ARGV[1])
  KEYS[2] info    emq:{q}:t:<tenant>:info    (the tenant's settings and active count)

  ARGV[1] base    'emq:{q}:'
  ARGV[2] tenant  tenant name
  ARGV[3] weight  integer 1..1000000

  Reply: 1.
  Clock: none.  Derived keys: emq:{q}:meta (field tenantSet, see laneRing), from ARGV[1] pinned to KEYS[1].
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "laneRing"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, tenant, weight = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[1] ~= base .. 'ring' or KEYS[2] ~= base .. 't:' .. tenant .. ':info' then
  return redis.error_reply('ERR echomq: tenantWeight arguments do not match its keys')
end
if not weight or weight < 1 or weight > 1000000 or weight % 1 ~= 0 then
  return redis.error_reply('ERR echomq: tenantWeight must be an integer from 1 to 1000000')
end
tenantOps().marked(base)
if weight == 1 then
  rcall('HDEL', KEYS[2], 'weight')
else
  rcall('HSET', KEYS[2], 'weight', string.format('%d', weight))
end
return 1
