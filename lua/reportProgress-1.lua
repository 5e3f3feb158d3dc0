--[[
  progress: keep a held job's progress (a number or a JSON object, as JSON text) on its row, field
  `progress`, where job() reads it. Only the holder of the current attempt may: a stale token or a
  job that is not active changes nothing.

  KEYS[1] job  emq:{q}:job:<id>

  ARGV[1] base   'emq:{q}:'
  ARGV[2] id     job id
  ARGV[3] token  the attempt number the caller holds
  ARGV[4] value  JSON text (the caller bounds it at 64 KiB)

  Reply: { 1, group } when kept, { 0 } when the token is stale or the job not active.
  Clock: none.  Derived keys: none.
  Pub/sub: publishes 'progress' to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueEvent"

local base, id, token, value = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if KEYS[1] ~= base .. 'job:' .. id or not token or not value then
  return redis.error_reply('ERR echomq: reportProgress arguments do not match its keys')
end
local row = rcall('HMGET', KEYS[1], 'state', 'attempts', 'group')
if row[1] ~= 'active' or tonumber(row[2]) ~= token then return { 0 } end
rcall('HSET', KEYS[1], 'progress', value)
-- NOTE: the value rides along when it is small; a listener reads a larger one with job().
if #value <= 1024 then queueEvent(base, 'progress', id, row[3] or '', 'progress', cjson.decode(value)) else queueEvent(base, 'progress', id, row[3] or '') end
return { 1, row[3] or '' }
