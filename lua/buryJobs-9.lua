--[[
  buryJobs: dead-letter jobs that a claim has just leased but that cannot be handed to a handler
  (their payload is not JSON: a row some other writer made). Each is fenced by its attempt token,
  so only the claim that leased it buries it; its lease and its lane's active count go, it joins
  the dead set with `reason` as last_error (visible in dead(), and retryDead puts it back), and a
  lane that its ceiling had parked rejoins the ring.

  KEYS[1] active   emq:{q}:active
  KEYS[2] gactive  emq:{q}:gactive
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] paused   emq:{q}:paused
  KEYS[5] ring     emq:{q}:ring
  KEYS[6] ringset  emq:{q}:ringset
  KEYS[7] dead     emq:{q}:dead
  KEYS[8] wake     emq:{q}:wake
  KEYS[9] stats    emq:{q}:stats

  ARGV[1] base    'emq:{q}:'
  ARGV[2] reason  the last_error to record
  ARGV[3] n       how many jobs follow (>= 0)
  ARGV[4..] id, token pairs

  Reply: the number of jobs dead-lettered (a stale token is skipped).
  Clock: server TIME (time of death).
  Derived keys: emq:{q}:job:<id> and the jobs' lanes, from ARGV[1] pinned to KEYS[5].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "releaseActive"
--- @include "reopenLane"

local base, reason, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[5] ~= base .. 'ring' or not reason or not n or n < 0 or #ARGV ~= 3 + n * 2 then
  return redis.error_reply('ERR echomq: buryJobs arguments do not match its keys')
end
local nowText = string.format('%d', nowMs())
local buried = 0
for i = 0, n - 1 do
  local id, token = ARGV[4 + i * 2], tonumber(ARGV[5 + i * 2])
  local jobKey = base .. 'job:' .. id
  local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group')
  if row[1] == 'active' and row[3] and tonumber(row[2]) == token then
    local left = releaseActive(KEYS[2], KEYS[1], row[3], id)
    rcall('HSET', jobKey, 'state', 'dead', 'last_error', reason)
    rcall('ZADD', KEYS[7], nowText, id)
    reopenLane(base, row[3], left, KEYS[5], KEYS[6], KEYS[4], KEYS[3], KEYS[2], KEYS[8])
    buried = buried + 1
  end
end
if buried > 0 then rcall('HINCRBY', KEYS[9], 'dead', string.format('%d', buried)) end
return buried
