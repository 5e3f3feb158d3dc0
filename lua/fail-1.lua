--[[
  fail: give a held job back. While attempts remain it is retried: after an exponential backoff
  through the schedule, or straight into its own lane at its mint position when the delay is 0.
  Once its attempts are spent it is dead-lettered with the error. A stale token changes nothing.
  In an ordered lane the retry keeps the lane's head: the lane is held off the ring until it is due
  (see includes/orderedLane).

  KEYS[1]  job       emq:{q}:job:<id>

  The queue's keys are derived from ARGV[1] (pinned to KEYS[1], so they share its {q} slot) into
  the table K, numbered as they were passed before (a key passed costs a call about 1,200 server
  instructions, one derived about half that):
  K[1]  job       emq:{q}:job:<id>
  K[2]  active    emq:{q}:active
  K[3]  gactive   emq:{q}:gactive
  K[4]  glimit    emq:{q}:glimit
  K[5]  paused    emq:{q}:paused
  K[6]  ring      emq:{q}:ring
  K[7]  ringset   emq:{q}:ringset
  K[8]  schedule  emq:{q}:schedule
  K[9]  dead      emq:{q}:dead      (scored by time of death)
  K[10] wake      emq:{q}:wake
  K[11] stats     emq:{q}:stats
  K[12] lanes     emq:{q}:lanes     (lane index, scored by pending depth)
  K[13] gweight   emq:{q}:gweight
  K[14] grate     emq:{q}:grate

  ARGV[1] base         'emq:{q}:'
  ARGV[2] id           job id
  ARGV[3] token        the attempt number the caller holds
  ARGV[4] error        the reason, stored as last_error
  ARGV[5] maxAttempts  the default when the job has none of its own (>= 1)
  ARGV[6] delayMs      backoff base delay (>= 0)
  ARGV[7] factor       backoff factor (>= 1)
  ARGV[8] maxDelayMs   backoff ceiling (>= 0, 0 for none)
  ARGV[9] dead         optional: '1' dead-letters the job now, whatever attempts it has left

  Reply: 'retry' | 'dead' | 'stale'.
  Clock: server TIME (due time of the retry, time of death).
  Pub/sub: publishes to channel emq:{q}:done when the job dies and a waiter marked its row, and to
  emq:{q}:events ('failed' or 'dead') while emq:{q}:listeners exists (see includes/queueEvent).
  Derived keys also: the job's lane.
]]
local rcall = redis.call
--- @include "indexGrew"
--- @include "queueRoom"
--- @include "nowMs"
--- @include "ringJoin"
--- @include "wakeBefore"
--- @include "releaseActive"
--- @include "indexForget"
--- @include "buryJob"
--- @include "markReady"
--- @include "queueEvent"
--- @include "orderedLane"
--- @include "laneParked"

local base, id, token, err = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local defaultMax, delay, factor, maxDelay = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
if KEYS[1] ~= base .. 'job:' .. id or not token or not defaultMax
   or defaultMax < 1 or not delay or delay < 0 or not factor or factor < 1 or not maxDelay or maxDelay < 0 then
  return redis.error_reply('ERR echomq: fail arguments do not match its keys')
end
local K = { KEYS[1], base .. 'active', base .. 'gactive', base .. 'glimit', base .. 'paused', base .. 'ring', base .. 'ringset',
  base .. 'schedule', base .. 'dead', base .. 'wake', base .. 'stats', base .. 'lanes', base .. 'gweight', base .. 'grate' }
local row = rcall('HMGET', K[1], 'state', 'attempts', 'group', 'max', 'base', 'waited', 'held', 'vc')
local attempts = tonumber(row[2])
if row[1] ~= 'active' or attempts ~= token then return 'stale' end
local group = row[3]
local maxAttempts = tonumber(row[4]) or defaultMax
local used = attempts - (tonumber(row[5]) or 0)
local now = nowMs()
local left = releaseActive(K[3], K[2], group, id)
local held = row[7]
local heldTenant = tenantOfHeld(held)
if heldTenant then tenantOps().release(base, heldTenant, 1, K[6], K[7], K[10]) end
-- NOTE: a job claimed in `time` fairness (row field vc) is charged the time it was held (see fairOps).
if row[8] then fairOps().settle(base, K[1], group, heldTenant, row[8], now) end
if held and string.byte(held) == 49 then queueRoom(K[10], K[2], 1) end
if used >= maxAttempts or ARGV[9] == '1' then
  buryJob(base, K[1], id, group, err, now, K[9], K[11], row[6])
  ringJoin(base, group, K[6], K[7], K[5], K[4], K[3], K[10])
  if left == 0 then indexForget(K[12], group, K[5], K[4], K[13], K[14], heldTenant) end
  return 'dead'
end
local wait = delay * factor ^ (used - 1)
if maxDelay > 0 and wait > maxDelay then wait = maxDelay end
wait = math.floor(wait)
-- NOTE: an ordered lane keeps its failed head: the lane waits out the backoff off the ring (see orderedLane).
if wait > 0 and orderedLane().is(base, group) then
  if compatMode() then wait = 0 else orderedLane().hold(base, group, id, K[4]) end
end
rcall('HINCRBY', K[11], 'retried', 1)
queueEvent(base, 'failed', id, group, 'attempt', attempts, 'error', string.sub(err, 1, 200), heldTenant)
if wait > 0 then
  rcall('HSET', K[1], 'state', 'scheduled', 'last_error', err)
  wakeBefore(K[8], now + wait, K[10])
  rcall('ZADD', K[8], now + wait, id)
  parkedIn(base, group)
  if left == 0 then indexForget(K[12], group, K[5], K[4], K[13], K[14], heldTenant) end
else
  rcall('HSET', K[1], 'state', 'pending', 'last_error', err)
  markReady(K[1], now, K[12], group)
  local laneKey = base .. 'g:' .. group .. ':pending'
  rcall('ZADD', laneKey, 0, id)
  indexGrew(K[12], group, laneKey, 1)
end
ringJoin(base, group, K[6], K[7], K[5], K[4], K[3], K[10])
return 'retry'
