--[[
  complete: acknowledge a job. Only the holder of the current attempt may: the token must equal the
  job's attempt counter and the job must be active. The row is deleted (the queue keeps counters,
  not a history); the lane's active count drops and the lane rejoins the ring if that made it
  serviceable again (it was at its ceiling).

  KEYS[1]  job       emq:{q}:job:<id>
  KEYS[2]  active    emq:{q}:active
  KEYS[3]  gactive   emq:{q}:gactive
  KEYS[4]  glimit    emq:{q}:glimit
  KEYS[5]  paused    emq:{q}:paused
  KEYS[6]  ring      emq:{q}:ring
  KEYS[7]  ringset   emq:{q}:ringset
  KEYS[8]  dedup     emq:{q}:dedup
  KEYS[9]  wake      emq:{q}:wake
  KEYS[10] stats     emq:{q}:stats     (counters: completed, retried, dead)

  ARGV[1] base   'emq:{q}:'
  ARGV[2] id     job id
  ARGV[3] token  the attempt number the caller holds

  Reply: 1 when completed, 0 when the token is stale or the job unknown (nothing changes).
  Clock: none.
  Derived keys: the job's lane emq:{q}:g:<group>:pending, from ARGV[1] pinned to KEYS[6].
]]
local rcall = redis.call
--- @include "reopenLane"
--- @include "releaseActive"

local base, id, token = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[1] ~= base .. 'job:' .. id or KEYS[6] ~= base .. 'ring' or not token then
  return redis.error_reply('ERR echomq: complete arguments do not match its keys')
end
local row = rcall('HMGET', KEYS[1], 'state', 'attempts', 'group', 'dedup')
if row[1] ~= 'active' or tonumber(row[2]) ~= token then return 0 end
local group = row[3]
local left = releaseActive(KEYS[3], KEYS[2], group, id)
rcall('DEL', KEYS[1])
if row[4] then rcall('HDEL', KEYS[8], row[4]) end
rcall('HINCRBY', KEYS[10], 'completed', '1')
reopenLane(base, group, left, KEYS[6], KEYS[7], KEYS[5], KEYS[4], KEYS[3], KEYS[9])
return 1
