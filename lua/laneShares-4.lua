--[[
  laneShares: what the lanes were served over the last 60 s of the server clock (shares()), read-only.
  The counts are servedShare's buckets (see includes/servedShare): the 7 buckets of 10 s that meet
  the window, the oldest weighted by its part inside it. The lanes returned are those served most;
  candidates are the `count` lanes served most in each bucket, so a lane is missed only when it was
  never among the top of any one bucket. Beside them, the `count` lanes with the oldest head entries
  (see includes/headBack), for Jain's index: a backlogged lane starved in the window has an old head.

  KEYS[1] lanes    emq:{q}:lanes    (lane index: depth of each lane; its head entries)
  KEYS[2] gweight  emq:{q}:gweight  (lane weights)
  KEYS[3] meta     emq:{q}:meta     (field fair: what a turn counts)
  KEYS[4] tenants  emq:{q}:tenants  (the tenants that have lanes)

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] count  lanes to return (1..1,000)

  Reply: { windowMs, jain ('' with fewer than two backlogged lanes, or none served), then per lane, served most
  first: group, tenant ('' none), served, work, weight, entitled (0..1, as text), backlogged (0/1) }.
  entitled: the lane's weight over the weights of the lanes backlogged now; under tenants, its
  tenant's weight over the queue's backlogged entries (tenants, and lanes of none) times its weight
  over its tenant's backlogged lanes. The sums read the tenants' lane sets and the weights up to
  ENTITLED_BUDGET lanes in all; past that they are of the lanes read.
  Clock: server TIME.
  Cost: a ZREVRANGE and a ZMSCORE per bucket, reads of the candidates' depths, weights and tenants in
  calls of 500 members, and the bounded sums above.
  Derived keys: the buckets emq:{q}:served:<n> and emq:{q}:work:<n>, the lanes' tenant keys, the
  tenants' lane sets and infos, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"

local BUCKET_MS = 10000
local WINDOW_MS = 60000
local CHUNK = 500
local ENTITLED_BUDGET = 10000
local DEPTH_CEILING = '(1000000000000'

local base, count = ARGV[1], tonumber(ARGV[2])
if not base or KEYS[1] ~= base .. 'lanes' or not count or count < 1 or count > 1000 then
  return redis.error_reply('ERR echomq: laneShares arguments do not match its keys')
end
local now = nowMs()
local fair = rcall('HGET', KEYS[3], 'fair')
local byWork = fair == 'cost' or fair == 'time'
local newest = math.floor(now / BUCKET_MS)
local buckets, parts = {}, {}
for n = newest - 6, newest do
  buckets[#buckets + 1] = string.format('%d', n)
  -- NOTE: the oldest bucket only partly meets the window [now - 60 s, now].
  parts[#parts + 1] = n == newest - 6 and math.max(0, ((n + 1) * BUCKET_MS - (now - WINDOW_MS)) / BUCKET_MS) or 1
end

-- Candidates: the top of every bucket, then the oldest heads.
local names, seen = {}, {}
local function candidate(name)
  if not seen[name] then
    seen[name] = #names + 1
    names[#names + 1] = name
  end
end
for i = 1, #buckets do
  for _, name in ipairs(rcall('ZREVRANGE', base .. 'served:' .. buckets[i], '0', string.format('%d', count - 1))) do candidate(name) end
end
local topServed = #names
for _, entry in ipairs(rcall('ZRANGEBYSCORE', KEYS[1], '1000000000000', '+inf', 'LIMIT', '0', string.format('%d', count))) do
  candidate(string.sub(entry, 4))
end

-- Reads of many members, CHUNK per call: fn(first, last) returns the replies of names[first..last].
local function chunked(fn)
  local out = {}
  for first = 1, #names, CHUNK do
    local last = math.min(#names, first + CHUNK - 1)
    local r = fn(first, last)
    for i = 1, #r do out[first + i - 1] = r[i] end
  end
  return out
end
local served, work = {}, {}
for i = 1, #names do served[i], work[i] = 0, 0 end
for b = 1, #buckets do
  local s = chunked(function(first, last) return rcall('ZMSCORE', base .. 'served:' .. buckets[b], unpack(names, first, last)) end)
  local w = byWork and chunked(function(first, last) return rcall('ZMSCORE', base .. 'work:' .. buckets[b], unpack(names, first, last)) end)
  for i = 1, #names do
    served[i] = served[i] + (tonumber(s[i]) or 0) * parts[b]
    if w then work[i] = work[i] + (tonumber(w[i]) or 0) * parts[b] end
  end
end
local depths = chunked(function(first, last) return rcall('ZMSCORE', KEYS[1], unpack(names, first, last)) end)
local weights = chunked(function(first, last) return rcall('HMGET', KEYS[2], unpack(names, first, last)) end)
local tenanted = rcall('SCARD', KEYS[4]) > 0
local tenantOf = {}
if tenanted then
  local keys = {}
  for i = 1, #names do keys[i] = base .. 'g:' .. names[i] .. ':tenant' end
  local t = {}
  for first = 1, #keys, CHUNK do
    local r = rcall('MGET', unpack(keys, first, math.min(#keys, first + CHUNK - 1)))
    for i = 1, #r do t[first + i - 1] = r[i] end
  end
  for i = 1, #names do tenantOf[i] = t[i] or false end
end

-- The weights behind `entitled`: the queue's backlogged entries, and each tenant's backlogged lanes.
local backloggedLanes = rcall('ZCOUNT', KEYS[1], '(0', DEPTH_CEILING)
local budget = ENTITLED_BUDGET
local tenantSum, tenantWeight, topSum = {}, {}, backloggedLanes
local function weightOf(w) return tonumber(w) or 1 end
if tenanted then
  for _, tenant in ipairs(rcall('SSCAN', KEYS[4], '0', 'COUNT', '1000')[2]) do
    if budget <= 0 then break end
    local lanes = rcall('SSCAN', base .. 't:' .. tenant .. ':lanes', '0', 'COUNT', string.format('%d', math.min(budget, 10000)))[2]
    budget = budget - #lanes
    local sum, n = 0, 0
    for first = 1, #lanes, CHUNK do
      local last = math.min(#lanes, first + CHUNK - 1)
      local d = rcall('ZMSCORE', KEYS[1], unpack(lanes, first, last))
      local w = rcall('HMGET', KEYS[2], unpack(lanes, first, last))
      for i = 1, #d do
        if (tonumber(d[i]) or 0) > 0 then
          sum = sum + weightOf(w[i])
          n = n + 1
        end
      end
    end
    -- NOTE: the tenant's lanes count as one entry of the queue's ring, of the tenant's weight.
    topSum = topSum - n
    if n > 0 then
      tenantSum[tenant] = sum
      tenantWeight[tenant] = weightOf(rcall('HGET', base .. 't:' .. tenant .. ':info', 'weight'))
      topSum = topSum + tenantWeight[tenant]
    end
  end
end
-- NOTE: a weighted lane of no tenant adds its weight less the 1 it was counted as.
if rcall('HLEN', KEYS[2]) > 0 then
  local cursor = '0'
  repeat
    local page = rcall('HSCAN', KEYS[2], cursor, 'COUNT', '500')
    cursor = page[1]
    local flat = page[2]
    local groups = {}
    for i = 1, #flat, 2 do groups[#groups + 1] = flat[i] end
    budget = budget - #groups
    if #groups > 0 then
      local d = rcall('ZMSCORE', KEYS[1], unpack(groups))
      local t = {}
      if tenanted then
        local keys = {}
        for i = 1, #groups do keys[i] = base .. 'g:' .. groups[i] .. ':tenant' end
        t = rcall('MGET', unpack(keys))
      end
      for i = 1, #groups do
        if (tonumber(d[i]) or 0) > 0 and not t[i] then topSum = topSum + weightOf(flat[i * 2]) - 1 end
      end
    end
  until cursor == '0' or budget <= 0
end

-- Jain's index over the backlogged candidates; the lanes served most, most first.
local sum, squares, n = 0, 0, 0
local rows = {}
for i = 1, #names do
  local depth = tonumber(depths[i]) or 0
  local backlogged = depth > 0 and depth < 1000000000000
  local w = weightOf(weights[i])
  local s = math.floor(served[i] + 0.5)
  local wk = byWork and math.floor(work[i] * 1000 + 0.5) / 1000 or s
  if backlogged then
    local x = wk / w
    sum, squares, n = sum + x, squares + x * x, n + 1
  end
  if i <= topServed and s > 0 then
    local tenant = tenantOf[i]
    local entitled = 0
    if backlogged then
      if tenant and tenantSum[tenant] then
        entitled = tenantWeight[tenant] / topSum * w / tenantSum[tenant]
      elseif topSum > 0 then
        entitled = w / topSum
      end
    end
    rows[#rows + 1] = { names[i], tenant or '', s, wk, w, math.min(1, entitled), backlogged and 1 or 0 }
  end
end
table.sort(rows, function(a, b) if a[3] ~= b[3] then return a[3] > b[3] end return a[1] < b[1] end)
local jain = ''
if n >= 2 and squares > 0 then jain = string.format('%.6f', sum * sum / (n * squares)) end
local out = { WINDOW_MS, jain }
for i = 1, math.min(count, #rows) do
  local r = rows[i]
  out[#out + 1] = r[1]
  out[#out + 1] = r[2]
  out[#out + 1] = string.format('%d', r[3])
  out[#out + 1] = tostring(r[4])
  out[#out + 1] = string.format('%d', r[5])
  out[#out + 1] = string.format('%.6f', r[6])
  out[#out + 1] = r[7]
end
return out
