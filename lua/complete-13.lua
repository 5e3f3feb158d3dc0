--[[
  complete: acknowledge a job. Only the holder of the current attempt may: the token must equal the
  job's attempt counter and the job must be active. The row is deleted, or kept `keepMs` with state
  `completed`, its result and finishedAt when asked; the lane's active count drops and the lane
  rejoins the ring if that made it serviceable again (it was at its ceiling). A waiter is told.

  KEYS[1]  job       emq:{q}:job:<id>
  KEYS[2]  active    emq:{q}:active
  KEYS[3]  gactive   emq:{q}:gactive
  KEYS[4]  glimit    emq:{q}:glimit
  KEYS[5]  paused    emq:{q}:paused
  KEYS[6]  ring      emq:{q}:ring
  KEYS[7]  ringset   emq:{q}:ringset
  KEYS[8]  dedup     emq:{q}:dedup
  KEYS[9]  wake      emq:{q}:wake
  KEYS[10] stats     emq:{q}:stats     (counters, and completions per second of the last minute)
  KEYS[11] lanes     emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[12] gweight   emq:{q}:gweight
  KEYS[13] grate     emq:{q}:grate

  ARGV[1] base    'emq:{q}:'
  ARGV[2] id      job id
  ARGV[3] token   the attempt number the caller holds
  ARGV[4] keepMs  how long to keep the completed row, 0 to delete it
  ARGV[5] result  the handler's result as JSON text, '' for none

  Reply: 1 when completed, 0 when the token is stale or the job unknown (nothing changes).
  Clock: server TIME (finishedAt, the completion-rate bucket).
  Derived keys: the job's lane emq:{q}:g:<group>:pending, and emq:{q}:kept:<dedupKey> when a kept
  job has a dedup key, from ARGV[1] pinned to KEYS[6].
  Pub/sub: publishes to channel emq:{q}:done when a waiter marked the row.
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueRoom"
--- @include "nowMs"
--- @include "completeJob"
--- @include "countCompleted"

local base, id, token, keepMs, result = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
if KEYS[1] ~= base .. 'job:' .. id or KEYS[6] ~= base .. 'ring' or not token or not keepMs or keepMs < 0 then
  return redis.error_reply('ERR echomq: complete arguments do not match its keys')
end
local now = nowMs()
local done, limited = completeJob(base, id, token, keepMs, result, now, KEYS[2], KEYS[3], KEYS[4], KEYS[5],
  KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[11], KEYS[12], KEYS[13])
if done == 1 then
  countCompleted(KEYS[10], now, 1)
  if limited then queueRoom(KEYS[9], KEYS[2], 1) end
end
return done
