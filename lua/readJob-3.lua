--[[
  readJob: one job as it is now (read-only).

  KEYS[1] job       emq:{q}:job:<id>
  KEYS[2] active    emq:{q}:active
  KEYS[3] schedule  emq:{q}:schedule

  ARGV[1] base  'emq:{q}:'
  ARGV[2] id    job id

  Reply: { id, state, group, attempts, payload, at, max, last_error, done, result, dueOrLease }
  (see includes/readJob), or an empty array when the queue does not hold the id.
  Clock: none.  Derived keys: none.
]]
local rcall = redis.call
--- @include "readJob"

local base, id = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'job:' .. id or KEYS[2] ~= base .. 'active' then
  return redis.error_reply('ERR echomq: readJob arguments do not match its keys')
end
return readJob(KEYS[1], id, KEYS[2], KEYS[3]) or {}
