--[[
  deadList: read the dead-lettered jobs, oldest death first (read-only).

  KEYS[1] dead  emq:{q}:dead

  ARGV[1] base    'emq:{q}:'
  ARGV[2] offset  >= 0
  ARGV[3] count   >= 1

  Reply: flat, per job: id, group, attempts, payload, submitted_at, last_error. A dead id without a
  row (see strayJob) is listed with group '', payload 'null' and last_error 'job row missing'; a
  row without a group (a flat job) with group ''.
  Clock: none.
  Derived keys: the job rows, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
local base, offset, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if KEYS[1] ~= base .. 'dead' or not offset or offset < 0 or not count or count < 1 then
  return redis.error_reply('ERR echomq: deadList arguments do not match its keys')
end
local ids = rcall('ZRANGE', KEYS[1], offset, offset + count - 1)
local out = {}
for i = 1, #ids do
  local row = rcall('HMGET', base .. 'job:' .. ids[i], 'group', 'attempts', 'payload', 'at', 'last_error')
  local missing = not row[1] and not row[2] and not row[3]
  out[#out + 1] = ids[i]
  out[#out + 1] = row[1] or ''
  out[#out + 1] = tonumber(row[2]) or 0
  out[#out + 1] = row[3] or 'null'
  out[#out + 1] = row[4] or '0'
  out[#out + 1] = missing and 'job row missing' or (row[5] or '')
end
return out
