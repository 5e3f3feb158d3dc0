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
  ARGV[4] count   members read by this call (1..PAGE_MAX; the caller reads 200, about 0.5 ms)

  Reply: { group1, depth1, group2, depth2, ... } in the index's order (highest score first); fewer
  than `count` pairs when the range ends within this page. Pages are by rank (O(log n) to reach
  one), so a lane whose score moves while the caller pages may be read twice or not at all.
  Clock: none.
  Cost: a ZCOUNT and a ZREVRANGE of `count` members (O(log n + count)), one ZCARD per lane.
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
-- NOTE: by rank, not by score with an offset (which walks past every member it skips): the head
-- entries (scored from HEAD_FLOOR up) come first in this order, then the lanes by score.
local start = rcall('ZCOUNT', KEYS[1], HEAD_FLOOR_TEXT, '+inf') + offset
local page = rcall('ZREVRANGE', KEYS[1], start, start + count - 1, 'WITHSCORES')
local out = {}
for i = 1, #page, 2 do
  if tonumber(page[i + 1]) < min then break end
  out[#out + 1] = page[i]
  out[#out + 1] = rcall('ZCARD', base .. 'g:' .. page[i] .. ':pending')
end
return out
