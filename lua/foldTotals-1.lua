--[[
  foldTotals: a shard that a smaller shard count drops hands its totals to shard 0 (see
  lib/lanes/sharding.ts), so that stats().totals, and the metrics' counters read from them, still
  count from when the queue began: 'take' on the shard dropped, then 'add' on shard 0. A process
  that stops between the two loses that shard's totals, as the shard's keys alone would.

  KEYS[1] stats  emq:{q}:stats of the shard (its totals: submitted, completed, retried, dead, reaped,
                 cancelled)

  ARGV[1] base   'emq:{q}:' of the shard; must be the prefix of KEYS[1]
  ARGV[2] mode   'take': reply the shard's totals and delete them; 'add': add ARGV[3..8] to them
  ARGV[3..8]     ('add') the six totals, in the order above

  Reply: the six totals taken ('take', 0 for one never counted), or { 1 } ('add').
  Clock: none.
]]
local rcall = redis.call
--- @include "queueTotals"

local base, mode = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'stats' or (mode ~= 'take' and mode ~= 'add') or (mode == 'add' and #ARGV ~= 8) then
  return redis.error_reply('ERR echomq: foldTotals arguments do not match its keys')
end
if mode == 'take' then
  local counts = queueTotals(KEYS[1])
  rcall('HDEL', KEYS[1], unpack(TOTAL_FIELDS))
  return counts
end
for i = 1, #TOTAL_FIELDS do
  local n = tonumber(ARGV[2 + i])
  if not n or n % 1 ~= 0 or n < 0 then return redis.error_reply('ERR echomq: foldTotals arguments do not match its keys') end
  if n > 0 then rcall('HINCRBY', KEYS[1], TOTAL_FIELDS[i], ARGV[2 + i]) end
end
return { 1 }
