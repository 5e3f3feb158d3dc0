--[[
  completeMany: acknowledge a batch of jobs in one round trip, each exactly as complete would: only
  the holder of the current attempt may, the row is deleted, the lane's active count drops and a
  lane that was held at its ceiling rejoins the ring.

  KEYS[1] active    emq:{q}:active
  KEYS[2] gactive   emq:{q}:gactive
  KEYS[3] glimit    emq:{q}:glimit
  KEYS[4] paused    emq:{q}:paused
  KEYS[5] ring      emq:{q}:ring
  KEYS[6] ringset   emq:{q}:ringset
  KEYS[7] dedup     emq:{q}:dedup
  KEYS[8] wake      emq:{q}:wake
  KEYS[9] stats     emq:{q}:stats

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[5]
  ARGV[2] count  n, the number of acks
  then 2 values per ack: id, token

  Reply: { 1 | 0 per ack, in input order } (0: a stale token or an unknown job; nothing changes).
  Clock: none.
  Derived keys: emq:{q}:job:<id> and the jobs' lanes, from ARGV[1] pinned to KEYS[5].
]]
local rcall = redis.call
--- @include "reopenLane"
--- @include "releaseActive"

local base, n = ARGV[1], tonumber(ARGV[2])
if KEYS[5] ~= base .. 'ring' or not n or n < 0 or #ARGV ~= 2 + n * 2 then
  return redis.error_reply('ERR echomq: completeMany arguments do not match its keys')
end
local out, done = {}, 0
for i = 0, n - 1 do
  local id, token = ARGV[3 + i * 2], tonumber(ARGV[4 + i * 2])
  local jobKey = base .. 'job:' .. id
  local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'dedup')
  if row[1] == 'active' and tonumber(row[2]) == token then
    local group = row[3]
    local left = releaseActive(KEYS[2], KEYS[1], group, id)
    rcall('DEL', jobKey)
    if row[4] then rcall('HDEL', KEYS[7], row[4]) end
    reopenLane(base, group, left, KEYS[5], KEYS[6], KEYS[4], KEYS[3], KEYS[2], KEYS[8])
    done = done + 1
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
if done > 0 then rcall('HINCRBY', KEYS[9], 'completed', string.format('%d', done)) end
return out
