--[[
  topTenants: the pending jobs of the queue's tenants, summed over their lanes (read-only), for
  topTenants() (the metrics' echomq_tenant_pending, the dashboard), in calls of at most LANES_MAX
  lanes each, so that none runs long: the caller passes back what is left until nothing is, adds the
  sums up and ranks them (see lib/scripts/tenant-scripts.ts). Each lane is counted itself (ZCARD of
  its pending set: the lane index holds depths only to within a factor of two, see indexMoved).

  KEYS[1] tenants  emq:{q}:tenants   (the tenants that have lanes with jobs or settings)

  ARGV[1] base   'emq:{q}:'
  then either nothing (the first call: the tenants are one SSCAN page of KEYS[1], about 1,000), or
  pairs of tenant, cursor: where each tenant's lane set is to be read on from ('' from the start).

  Reply: { lanes read, then per tenant: tenant, pending summed in this call, cursor } where cursor
  '0' means the tenant's lanes were all read, else it is where the next call goes on.
  Clock: none.
  Derived keys: each tenant's lane set emq:{q}:t:<tenant>:lanes and its lanes' pending sets
  emq:{q}:g:<group>:pending, from ARGV[1] pinned to KEYS[1].
  Cost: at most LANES_MAX lanes (a SSCAN page past it at most), each a ZCARD: about 1.5 ms.
]]
local rcall = redis.call

local LANES_MAX = 1000

local base = ARGV[1]
if not base or KEYS[1] ~= base .. 'tenants' or #ARGV % 2 ~= 1 then
  return redis.error_reply('ERR echomq: topTenants arguments do not match its keys')
end
local todo = {}
if #ARGV == 1 then
  for _, tenant in ipairs(rcall('SSCAN', KEYS[1], '0', 'COUNT', '1000')[2]) do
    todo[#todo + 1] = tenant
    todo[#todo + 1] = ''
  end
else
  for i = 2, #ARGV do todo[#todo + 1] = ARGV[i] end
end
local out = { 0 }
local budget = LANES_MAX
for i = 1, #todo, 2 do
  local tenant, cursor, pending = todo[i], todo[i + 1], 0
  local key = base .. 't:' .. tenant .. ':lanes'
  while budget > 0 and cursor ~= '0' do
    local page = rcall('SSCAN', key, cursor == '' and '0' or cursor, 'COUNT', string.format('%d', math.min(budget, 500)))
    cursor = page[1]
    for _, group in ipairs(page[2]) do
      pending = pending + rcall('ZCARD', base .. 'g:' .. group .. ':pending')
    end
    budget = budget - #page[2]
  end
  out[#out + 1] = tenant
  out[#out + 1] = pending
  out[#out + 1] = cursor
end
out[1] = LANES_MAX - budget
return out
