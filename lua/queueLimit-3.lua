--[[
  queueLimit: set or clear the queue's ceiling on its active jobs over all lanes and tenants (BullMQ's
  global concurrency). Claims never lease past it, whatever the number of claimers (they count the
  active set); a queue that gains room wakes consumers (see queueRoom).

  KEYS[1] meta    emq:{q}:meta     (field limit)
  KEYS[2] wake    emq:{q}:wake
  KEYS[3] active  emq:{q}:active   (the leases: the queue's active jobs)

  ARGV[1] limit   integer 1..1000000, or '' to remove the ceiling

  Reply: 1.
  Clock: none.  Derived keys: none.
]]
local rcall = redis.call
--- @include "pushWake"

local raw = ARGV[1]
local limit = tonumber(raw)
if raw ~= '' and (not limit or limit < 1 or limit > 1000000 or limit % 1 ~= 0) then
  return redis.error_reply('ERR echomq: queueLimit must be an integer from 1 to 1000000, or none')
end
local before = tonumber(rcall('HGET', KEYS[1], 'limit'))
if limit then rcall('HSET', KEYS[1], 'limit', string.format('%d', limit)) else rcall('HDEL', KEYS[1], 'limit') end
-- NOTE: more room than before (or none at all): consumers idle at the old ceiling claim again.
local active = rcall('ZCARD', KEYS[3])
if before and active >= before and (not limit or limit > active) then pushWake(KEYS[2], 16) end
return 1
