--[[
  topTenants: the tenants with the most pending jobs, most first (read-only), for the metrics'
  echomq_tenant_pending and the dashboard: each tenant's pending count is summed over its lanes'
  depths in the lane index.

  KEYS[1] tenants  emq:{q}:tenants   (the tenants that have lanes with jobs or settings)
  KEYS[2] lanes    emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base   'emq:{q}:'
  ARGV[2] count  how many tenants to return, 1..1000

  Reply: { tenant1, pending1, tenant2, pending2, ... } by pending, most first (ties by name).
  Clock: none.
  Derived keys: each tenant's lane set emq:{q}:t:<tenant>:lanes, from ARGV[1] pinned to KEYS[1].
  Cost: bounded: one SSCAN page of tenants (about 1,000) and of each one's lanes, 10,000 lanes in
  all; past that the counts are of the lanes read.
]]
local rcall = redis.call

local base, count = ARGV[1], tonumber(ARGV[2])
if KEYS[1] ~= base .. 'tenants' or not count or count < 1 or count > 1000 then
  return redis.error_reply('ERR echomq: topTenants arguments do not match its keys')
end
local page = rcall('SSCAN', KEYS[1], '0', 'COUNT', '1000')[2]
local budget = 10000
local rows = {}
for _, tenant in ipairs(page) do
  local pending = 0
  for _, group in ipairs(rcall('SSCAN', base .. 't:' .. tenant .. ':lanes', '0', 'COUNT', string.format('%d', budget))[2]) do
    pending = pending + (tonumber(rcall('ZSCORE', KEYS[2], group)) or 0)
    budget = budget - 1
  end
  rows[#rows + 1] = { tenant, pending }
  if budget <= 0 then break end
end
table.sort(rows, function(a, b)
  if a[2] ~= b[2] then return a[2] > b[2] end
  return a[1] < b[1]
end)
local out = {}
for i = 1, math.min(count, #rows) do
  out[#out + 1] = rows[i][1]
  out[#out + 1] = rows[i][2]
end
return out
