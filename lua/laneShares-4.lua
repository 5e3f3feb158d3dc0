--[[
  laneShares: what the lanes were served over the last 60 s of the server clock (shares()), read-only,
  in three kinds of call so that none runs long (the caller puts them together, see
  lib/scripts/fairness-view-scripts.ts):
  - 'top': the candidates: the `count` lanes served most in each bucket of the window (see
    includes/servedShare), then for Jain's index every backlogged lane while there are at most
    JAIN_ALL_MAX, past that the `count` lanes with the oldest head entries (see includes/headBack): a
    backlogged lane starved in the window has an old head. A lane is missed only when it was never
    among the top of any one bucket.
  - 'rows': for up to 500 named lanes, what they were served in the window that ends at `now` (the 7
    buckets of 10 s that meet it, the oldest weighted by its part inside it), their depth as the lane
    index has it (within a factor of two, see includes/indexMoved: the caller asks only whether it is
    above 0), weight and tenant.
  - 'sums': the weights behind `entitled`: the sum over the queue's backlogged entries (lanes of no
    tenant, and tenants with a backlogged lane, each at its weight), and per such tenant the sum of its
    backlogged lanes' weights. It reads the tenants' lane sets and the weighted lanes up to BUDGET lanes
    in all; past that the sums are of the lanes read.

  KEYS[1] lanes    emq:{q}:lanes    (lane index: depth of each lane; its head entries)
  KEYS[2] gweight  emq:{q}:gweight  (lane weights)
  KEYS[3] meta     emq:{q}:meta     (field fair: what a turn counts)
  KEYS[4] tenants  emq:{q}:tenants  (the tenants that have lanes)

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] kind   'top', 'rows' or 'sums'
  'top':  ARGV[3] count (1..1,000)      Reply: { now, byWork (1 in cost/time fairness), names served most..., '', oldest heads' names..., backlogged lanes' names... }
  'rows': ARGV[3] now, ARGV[4..] names  Reply: per name: served, work (text, fractional), depth, weight (text), tenant ('' none)
  'sums': no more arguments             Reply: { top sum, then per backlogged tenant: tenant, its weight, its lanes' sum }
  Clock: server TIME ('top'; 'rows' takes the `now` it gave).
  Cost: 'top' a ZREVRANGE per bucket and at most JAIN_ALL_MAX lanes of the index; 'rows' a ZMSCORE per bucket (two in cost/time), one of the
  index, an HMGET and an MGET, of at most 500 members; 'sums' bounded by BUDGET lanes.
  Derived keys: the buckets emq:{q}:served:<n> and emq:{q}:work:<n>, the lanes' tenant keys, the
  tenants' lane sets and infos, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "headEntry"
--- @include "shareWindow"

local ROWS_MAX = 500
local BUDGET = 1000
local JAIN_ALL_MAX = 1000

local base, kind = ARGV[1], ARGV[2]
if not base or KEYS[1] ~= base .. 'lanes' or (kind ~= 'top' and kind ~= 'rows' and kind ~= 'sums') then
  return redis.error_reply('ERR echomq: laneShares arguments do not match its keys')
end

if kind == 'top' then
  local count = tonumber(ARGV[3])
  if not count or count < 1 or count > 1000 then return redis.error_reply('ERR echomq: laneShares count must be 1..1000') end
  local now = nowMs()
  local fair = rcall('HGET', KEYS[3], 'fair')
  local out, seen = { string.format('%d', now), (fair == 'cost' or fair == 'time') and 1 or 0 }, {}
  -- Appends the names not listed yet (heads given as entries: their lane's name).
  local function add(names, heads)
    for _, name in ipairs(names) do
      if heads then name = headGroup(name) end
      if not seen[name] then
        seen[name] = true
        out[#out + 1] = name
      end
    end
  end
  local buckets = shareWindow(now)
  local last = string.format('%d', count - 1)
  for i = 1, #buckets do add(rcall('ZREVRANGE', base .. 'served:' .. buckets[i], '0', last)) end
  out[#out + 1] = ''
  add(rcall('ZRANGEBYSCORE', KEYS[1], HEAD_FLOOR_TEXT, '+inf', 'LIMIT', '0', string.format('%d', count)), true)
  -- NOTE: Jain's index is over the backlogged lanes: while there are at most JAIN_ALL_MAX of them, every
  -- one is a candidate, so the index is exact; past that the oldest heads stand in for the starved.
  if rcall('ZCOUNT', KEYS[1], '(0', DEPTH_BELOW_HEADS) <= JAIN_ALL_MAX then
    add(rcall('ZRANGEBYSCORE', KEYS[1], '(0', DEPTH_BELOW_HEADS))
  end
  return out
end

if kind == 'rows' then
  local now = tonumber(ARGV[3])
  local n = #ARGV - 3
  if not now or n < 1 or n > ROWS_MAX then return redis.error_reply('ERR echomq: laneShares rows take 1..500 lanes') end
  local fair = rcall('HGET', KEYS[3], 'fair')
  local byWork = fair == 'cost' or fair == 'time'
  local buckets, parts = shareWindow(now)
  local served, work = {}, {}
  for i = 1, n do served[i], work[i] = 0, 0 end
  for b = 1, #buckets do
    local s = rcall('ZMSCORE', base .. 'served:' .. buckets[b], unpack(ARGV, 4))
    local w = byWork and rcall('ZMSCORE', base .. 'work:' .. buckets[b], unpack(ARGV, 4))
    for i = 1, n do
      served[i] = served[i] + (tonumber(s[i]) or 0) * parts[b]
      if w then work[i] = work[i] + (tonumber(w[i]) or 0) * parts[b] end
    end
  end
  local depths = rcall('ZMSCORE', KEYS[1], unpack(ARGV, 4))
  local weights = rcall('HMGET', KEYS[2], unpack(ARGV, 4))
  local tenants = {}
  if rcall('EXISTS', KEYS[4]) == 1 then
    local keys = {}
    for i = 1, n do keys[i] = base .. 'g:' .. ARGV[i + 3] .. ':tenant' end
    tenants = rcall('MGET', unpack(keys))
  end
  local out = {}
  for i = 1, n do
    out[#out + 1] = string.format('%.3f', served[i])
    out[#out + 1] = string.format('%.3f', byWork and work[i] or served[i])
    out[#out + 1] = depths[i] or '0'
    out[#out + 1] = weights[i] or '1'
    out[#out + 1] = tenants[i] or ''
  end
  return out
end

-- 'sums'
local function weightOf(w) return tonumber(w) or 1 end
local budget = BUDGET
local top = rcall('ZCOUNT', KEYS[1], '(0', DEPTH_BELOW_HEADS)
local out = { 0 }
local tenanted = rcall('EXISTS', KEYS[4]) == 1
if tenanted then
  for _, tenant in ipairs(rcall('SSCAN', KEYS[4], '0', 'COUNT', '1000')[2]) do
    if budget <= 0 then break end
    local lanes = rcall('SSCAN', base .. 't:' .. tenant .. ':lanes', '0', 'COUNT', string.format('%d', budget))[2]
    budget = budget - #lanes
    local sum, n = 0, 0
    for first = 1, #lanes, ROWS_MAX do
      local last = math.min(#lanes, first + ROWS_MAX - 1)
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
    top = top - n
    if n > 0 then
      local tw = weightOf(rcall('HGET', base .. 't:' .. tenant .. ':info', 'weight'))
      top = top + tw
      out[#out + 1] = tenant
      out[#out + 1] = string.format('%d', tw)
      out[#out + 1] = string.format('%d', sum)
    end
  end
end
-- NOTE: a weighted lane of no tenant adds its weight less the 1 it was counted as.
if rcall('EXISTS', KEYS[2]) == 1 then
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
        if (tonumber(d[i]) or 0) > 0 and not t[i] then top = top + weightOf(flat[i * 2]) - 1 end
      end
    end
  until cursor == '0' or budget <= 0
end
out[1] = string.format('%d', top)
return out
