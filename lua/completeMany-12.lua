--[[
  completeMany: acknowledge a batch of jobs in one round trip, each exactly as complete would: only
  the holder of the current attempt may, the row is deleted (or kept `keepMs` with its result), the
  lane's active count drops and a lane that was held at its ceiling rejoins the ring.

  KEYS[1]  active    emq:{q}:active
  KEYS[2]  gactive   emq:{q}:gactive
  KEYS[3]  glimit    emq:{q}:glimit
  KEYS[4]  paused    emq:{q}:paused
  KEYS[5]  ring      emq:{q}:ring
  KEYS[6]  ringset   emq:{q}:ringset
  KEYS[7]  dedup     emq:{q}:dedup
  KEYS[8]  wake      emq:{q}:wake
  KEYS[9]  stats     emq:{q}:stats
  KEYS[10] lanes     emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[11] gweight   emq:{q}:gweight
  KEYS[12] grate     emq:{q}:grate

  ARGV[1] base    'emq:{q}:'; must be the prefix of KEYS[5]
  ARGV[2] count   n, the number of acks
  ARGV[3] keepMs  how long to keep completed rows, 0 to delete them
  then 3 values per ack: id, token, result (JSON text, '' for none)

  Reply: { 1 | 0 per ack, in input order } (0: a stale token or an unknown job; nothing changes).
  Clock: server TIME (finishedAt, the completion-rate bucket).
  Derived keys: emq:{q}:job:<id>, the jobs' lanes and emq:{q}:kept:<dedupKey>, from ARGV[1] pinned to KEYS[5].
  Pub/sub: publishes to channel emq:{q}:done for rows a waiter marked.
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueRoom"
--- @include "nowMs"
--- @include "completeJob"
--- @include "countCompleted"

local base, n, keepMs = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if KEYS[5] ~= base .. 'ring' or not n or n < 0 or not keepMs or keepMs < 0 or #ARGV ~= 3 + n * 3 then
  return redis.error_reply('ERR echomq: completeMany arguments do not match its keys')
end
local now = nowMs()
local out, done = {}, 0
-- NOTE: whether the queue has any pause, ceiling, weight or rate, asked once per batch rather than
-- per lane (worth its three EXISTS from two acks on); the leases and rows go in one ZREM and one DEL.
if n > 1 then learnSettings(KEYS[4], KEYS[3], KEYS[11], KEYS[12]) end
beginCompleteBatch()
local owed = 0
for i = 0, n - 1 do
  local o = 4 + i * 3
  local r, limited = completeJob(base, ARGV[o], tonumber(ARGV[o + 1]), keepMs, ARGV[o + 2], now, KEYS[1], KEYS[2],
    KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[10], KEYS[11], KEYS[12])
  done = done + r
  if limited and r == 1 then owed = owed + 1 end
  out[#out + 1] = r
end
flushCompleted(KEYS[1])
if done > 0 then
  countCompleted(KEYS[9], now, done)
  if owed > 0 then queueRoom(KEYS[8], KEYS[1], owed) end
end
return out
