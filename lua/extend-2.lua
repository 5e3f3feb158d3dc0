--[[
  extend: renew the lease of a job the caller still holds.

  KEYS[1] job     emq:{q}:job:<id>
  KEYS[2] active  emq:{q}:active

  ARGV[1] id       job id
  ARGV[2] token    the attempt number the caller holds
  ARGV[3] leaseMs  new lease length from now, >= 1

  Reply: the new lease deadline in ms, or 0 when the job is no longer held under that token.
  Clock: server TIME.
  Derived keys: none.
]]
local rcall = redis.call
--- @include "nowMs"

local id, token, leaseMs = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not token or not leaseMs or leaseMs < 1 then
  return redis.error_reply('ERR echomq: extend arguments are not numbers')
end
local row = rcall('HMGET', KEYS[1], 'state', 'attempts')
if row[1] ~= 'active' or tonumber(row[2]) ~= token then return 0 end
local leaseUntil = nowMs() + leaseMs
-- NOTE: the update of ZADD XX as ZREM then ZADD, so that it is not refused at maxmemory (see
-- rotateRing): a holder keeps renewing its lease while the server is full.
if rcall('ZREM', KEYS[2], id) == 1 then rcall('ZADD', KEYS[2], leaseUntil, id) end
return leaseUntil
