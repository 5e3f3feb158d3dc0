--[[
  bandDepths: the exact depths of one page of the lanes the lane index scores at `min` or more, for
  topLanes (see lib/lanes/deepest-lanes.ts). The index knows a lane's depth only within a factor of
  two (see includes/indexMoved), so to rank the lanes of the count-th's band the caller counts every
  lane of that band (and the few above it), a page a call, so that no call runs long however many
  lanes share the band. Read-only.

  KEYS[1] lanes   emq:{q}:lanes   (the lane index)

  ARGV[1] base    'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] min     the lowest score read (the band's lower edge, a power of two), >= 1
  ARGV[3] offset  members of that range already read, highest score first (>= 0)
  ARGV[4] count   members read by this call (1..PAGE_MAX)

  Reply: { group1, depth1, group2, depth2, ... } in the index's order (highest score first); fewer
  than `count` pairs when the range ends within this page.
  Clock: none.
  Cost: one ZREVRANGEBYSCORE of `count` members, one ZCARD per lane (about 2 µs each: a page of
  1,000 well under 5 ms).
  Derived keys: the lanes' pending sets emq:{q}:g:<group>:pending, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "headEntry"

local PAGE_MAX = 1000

local base, min, offset, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not base or KEYS[1] ~= base .. 'lanes' or not min or min < 1 or not offset or offset < 0 or offset % 1 ~= 0
   or not count or count < 1 or count > PAGE_MAX or count % 1 ~= 0 then
  return redis.error_reply('ERR echomq: bandDepths arguments do not match its keys')
end
local names = rcall('ZREVRANGEBYSCORE', KEYS[1], DEPTH_BELOW_HEADS, ARGV[2], 'LIMIT', ARGV[3], ARGV[4])
local out = {}
for i = 1, #names do
  out[#out + 1] = names[i]
  out[#out + 1] = rcall('ZCARD', base .. 'g:' .. names[i] .. ':pending')
end
return out
