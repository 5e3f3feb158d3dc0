--[[
  tenantInfo: read one tenant's state (read-only), its pending count summed a page of its lanes at
  a time: the caller passes the cursor back until it is '0' and adds the pages up. Each lane is
  counted itself (ZCARD of its pending set): the lane index holds depths only to within a factor of
  two (see indexMoved).

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] info     emq:{q}:t:<tenant>:info
  KEYS[3] tring    emq:{q}:t:<tenant>:ring
  KEYS[4] tlanes   emq:{q}:t:<tenant>:lanes   (its lanes that hold jobs or settings)
  KEYS[5] timers   emq:{q}:timers
  KEYS[6] gactive  emq:{q}:gactive

  ARGV[1] base    'emq:{q}:'
  ARGV[2] tenant  tenant name
  ARGV[3] cursor  '0' to start

  Reply: { lanes, pendingOfPage, active (of the page's lanes when the tenant has no limit: the count
  is kept only under one, see laneRing), weight, limit (-1 none), paused (0/1), pausedUntil (-1 none),
  pauseReason, inRing (0/1), nextCursor }.
  Clock: server TIME (a timed pause whose end has passed is reported as over, as laneRow does).
  Derived keys: the tenant's ring's virtual-time set <tring>:vt (see ringOps), and its lanes'
  pending sets emq:{q}:g:<group>:pending, from ARGV[1] (checked against KEYS[1]).
  Cost: at most 1,000 lanes of the tenant a call.
]]
local rcall = redis.call
--- @include "nowMs"

local base, tenant, cursor = ARGV[1], ARGV[2], ARGV[3]
if KEYS[1] ~= base .. 'ringset' or KEYS[2] ~= base .. 't:' .. tenant .. ':info' or KEYS[6] ~= base .. 'gactive'
   or not tonumber(cursor) then
  return redis.error_reply('ERR echomq: tenantInfo arguments do not match its keys')
end
local page = rcall('SSCAN', KEYS[4], cursor, 'COUNT', '1000')
local pending = 0
for _, group in ipairs(page[2]) do pending = pending + rcall('ZCARD', base .. 'g:' .. group .. ':pending') end
local r = rcall('HMGET', KEYS[2], 'weight', 'limit', 'active', 'paused', 'until', 'reason')
local paused, untilMs, reason = r[4] and true or false, tonumber(r[5]) or -1, r[6] or ''
local inRing = rcall('SISMEMBER', KEYS[1], '{t}' .. tenant) == 1
local active, limit = tonumber(r[3]) or 0, tonumber(r[2])
if not limit then
  active = 0
  if #page[2] > 0 then
    for _, n in ipairs(rcall('HMGET', KEYS[6], unpack(page[2]))) do active = active + (tonumber(n) or 0) end
  end
end
if paused and untilMs >= 0 and untilMs <= nowMs() then
  paused, untilMs, reason = false, -1, ''
  inRing = rcall('LLEN', KEYS[3]) + rcall('ZCARD', KEYS[3] .. ':vt') > 0 and not (limit and active >= limit)
end
return { rcall('SCARD', KEYS[4]), pending, active, tonumber(r[1]) or 1, limit or -1, paused and 1 or 0,
  untilMs, reason, inRing and 1 or 0, page[1] }
