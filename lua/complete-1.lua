--[[
  complete: acknowledge a job. Only the holder of the current attempt may: the token must equal the
  job's attempt counter and the job must be active. The row is deleted, or kept `keepMs` with state
  `completed`, its result and finishedAt when asked; the lane's active count drops and the lane
  rejoins the ring if that made it serviceable again (it was at its ceiling). A waiter is told.

  KEYS[1]  job       emq:{q}:job:<id>

  The queue's keys are derived from ARGV[1] (pinned to KEYS[1], so they share its {q} slot): a key
  passed costs the call about 1,200 server instructions, one derived about half that. They are
  active, gactive, glimit, paused, ring, ringset, dedup, wake, stats (counters, and completions per
  second of the last minute), lanes (the lane index, scored by pending depth), gweight and grate.

  ARGV[1] base    'emq:{q}:'
  ARGV[2] id      job id
  ARGV[3] token   the attempt number the caller holds
  ARGV[4] keepMs  how long to keep the completed row, 0 to delete it; absent: 0
  ARGV[5] result  the handler's result as JSON text, '' for none; absent: ''
  (the caller leaves both out in the common case: each argument costs the call a Lua string)

  Reply: 1 when completed, 0 when the token is stale or the job unknown (nothing changes).
  Clock: server TIME (finishedAt, the completion-rate bucket).
  Derived keys also: the job's lane emq:{q}:g:<group>:pending, and emq:{q}:kept:<dedupKey> when a
  kept job has a dedup key.
  Pub/sub: publishes to channel emq:{q}:done when a waiter marked the row.
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueRoom"
--- @include "queueKeys"
--- @include "nowMs"
--- @include "completeJob"
--- @include "countCompleted"
--- @include "numberOf"

local base, id, token = ARGV[1], ARGV[2], numberOf(ARGV[3])
local keepMs, result = 0, ''
if #ARGV > 3 then keepMs, result = numberOf(ARGV[4]), ARGV[5] or '' end
if KEYS[1] ~= base .. 'job:' .. id or not token or not keepMs or keepMs < 0 then
  return redis.error_reply('ERR echomq: complete arguments do not match its keys')
end
local K = queueKeys(base)
local activeKey, wakeKey = K.active, K.wake
local now = nowMs()
learnQuiet(base, K.paused, K.glimit, K.gweight, K.grate, K.dedup)
local done, limited = completeJob(base, id, token, keepMs, result, now, activeKey, K.gactive, K.glimit,
  K.paused, K.ring, K.ringset, K.dedup, wakeKey, K.lanes, K.gweight, K.grate, KEYS[1])
if done == 1 then
  countCompleted(K.stats, now, 1)
  if limited then queueRoom(wakeKey, activeKey, 1) end
end
return done
