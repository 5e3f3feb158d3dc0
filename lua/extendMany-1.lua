--[[
  extendMany: renew the leases of many held jobs in one round trip, each exactly as extend would:
  only while the job is active under the caller's token.

  KEYS[1] active  emq:{q}:active

  ARGV[1] base     'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs  new lease length from now, >= 1
  ARGV[3] count    n, the number of jobs
  then 2 values per job: id, token

  Reply: { deadline | 0 per job, in input order } (0: no longer held under that token).
  Clock: server TIME, read once for the whole call.
  Derived keys: emq:{q}:job:<id>, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"

local base, leaseMs, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if KEYS[1] ~= base .. 'active' or not leaseMs or leaseMs < 1 or not n or n < 0 or #ARGV ~= 3 + n * 2 then
  return redis.error_reply('ERR echomq: extendMany arguments do not match its keys')
end
for i = 0, n - 1 do
  if not tonumber(ARGV[5 + i * 2]) then
    return redis.error_reply('ERR echomq: extendMany item ' .. (i + 1) .. ' has a bad token')
  end
end
local leaseUntil = nowMs() + leaseMs
local text = string.format('%d', leaseUntil)
local out = {}
for i = 0, n - 1 do
  local id, token = ARGV[4 + i * 2], tonumber(ARGV[5 + i * 2])
  local row = rcall('HMGET', base .. 'job:' .. id, 'state', 'attempts')
  -- NOTE: ZREM then ZADD rather than ZADD XX, as extend does (not refused at maxmemory).
  if row[1] == 'active' and tonumber(row[2]) == token and rcall('ZREM', KEYS[1], id) == 1 then
    rcall('ZADD', KEYS[1], text, id)
    out[#out + 1] = leaseUntil
  else
    out[#out + 1] = 0
  end
end
return out
