--[[
  completeMany: acknowledge a batch of jobs in one round trip, each exactly as complete would: only
  the holder of the current attempt may, the row is deleted (or kept `keepMs` with its result), the
  lane's active count drops and a lane that was held at its ceiling rejoins the ring.

  KEYS[1]  ring      emq:{q}:ring

  The queue's other keys are derived from ARGV[1] (pinned to KEYS[1], so they share its {q} slot):
  active, gactive, glimit, paused, ringset, dedup, wake, stats, lanes (the lane index, scored by
  pending depth), gweight and grate. A key passed costs a call about 1,200 server instructions.

  ARGV[1] base    'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] count   n, the number of acks
  ARGV[3] keepMs  how long to keep completed rows, 0 to delete them
  then 3 values per ack: id, token, result (JSON text, '' for none); or 2 (id, token) when no ack
  of the call has a result (each value passed costs the call about 1,000 server instructions)

  Reply: { done, then the 1-based places of the acks that did nothing (a stale token or an unknown
  job; nothing changes) }, done the count of jobs completed.
  Clock: server TIME (finishedAt, the completion-rate bucket).
  Derived keys: emq:{q}:job:<id>, the jobs' lanes and emq:{q}:kept:<dedupKey>, from ARGV[1].
  Pub/sub: publishes to channel emq:{q}:done for rows a waiter marked.
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueRoom"
--- @include "nowMs"
--- @include "completeJob"
--- @include "countCompleted"
--- @include "queueKeys"

local base, n, keepMs = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local K = queueKeys(base)
local stride = n and n > 0 and #ARGV == 3 + n * 2 and 2 or 3
if KEYS[1] ~= K.ring or not n or n < 0 or not keepMs or keepMs < 0 or #ARGV ~= 3 + n * stride then
  return redis.error_reply('ERR echomq: completeMany arguments do not match its keys')
end
local ringKey, activeKey, gactiveKey, glimitKey, pausedKey = KEYS[1], K.active, K.gactive, K.glimit, K.paused
local ringSetKey, dedupKey, wakeKey, lanesKey = K.ringset, K.dedup, K.wake, K.lanes
local weightKey, rateKey = K.gweight, K.grate
local now = nowMs()
local out, done = { 0 }, 0
-- NOTE: whether the queue has any pause, ceiling, weight, rate or listener, asked once per call
-- (one EXISTS, see learnQuiet) and, when it has one, asked apart once per batch rather than per lane
-- (worth its three EXISTS from two acks on), with what its rows can hold (learnRows); the leases and
-- rows go in one ZREM and one DEL.
if not learnQuiet(base, pausedKey, glimitKey, weightKey, rateKey, dedupKey) and n > 1 then learnSettings(pausedKey, glimitKey, weightKey, rateKey) end
if not rowShape and n > 1 then learnRows(base, dedupKey) end
beginCompleteBatch()
local owed = 0
for i = 0, n - 1 do
  local o = 4 + i * stride
  local r, limited = completeJob(base, ARGV[o], numberOf(ARGV[o + 1]), keepMs, stride == 3 and ARGV[o + 2] or '', now, activeKey, gactiveKey,
    glimitKey, pausedKey, ringKey, ringSetKey, dedupKey, wakeKey, lanesKey, weightKey, rateKey)
  done = done + r
  if limited and r == 1 then owed = owed + 1 end
  if r == 0 then out[#out + 1] = i + 1 end
end
out[1] = done
flushCompleted(activeKey)
if done > 0 then
  countCompleted(K.stats, now, done)
  if owed > 0 then queueRoom(wakeKey, activeKey, owed) end
end
return out
