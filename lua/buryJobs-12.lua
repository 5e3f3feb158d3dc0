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
  KEYS[9] stats    emq:{q}:stats    (totals: `dead` counts them)
  KEYS[10] lanes   emq:{q}:lanes    (lane index: a lane left idle with no setting leaves it)
  KEYS[11] gweight emq:{q}:gweight
  KEYS[12] grate   emq:{q}:grate

  ARGV[1] base    'emq:{q}:'
  ARGV[2] reason  the last_error to record
  ARGV[3] n       how many jobs follow (>= 0)
  ARGV[4..] id, token pairs

  Reply: the number of jobs dead-lettered (a stale token is skipped).
  Clock: server TIME (time of death).
  Pub/sub: publishes to channel emq:{q}:done when a waiter marked a buried job's row (see buryJob).
  Derived keys: emq:{q}:job:<id> and the jobs' lanes, from ARGV[1] pinned to KEYS[5].
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "queueRoom"
--- @include "nowMs"
--- @include "releaseActive"
--- @include "reopenLane"
--- @include "indexForget"
--- @include "buryJob"

local base, reason, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[5] ~= base .. 'ring' or not reason or not n or n < 0 or #ARGV ~= 3 + n * 2 then
  return redis.error_reply('ERR echomq: buryJobs arguments do not match its keys')
end
local now = nowMs()
local buried = 0
local owed = 0
for i = 0, n - 1 do
  local id, token = ARGV[4 + i * 2], tonumber(ARGV[5 + i * 2])
  local jobKey = base .. 'job:' .. id
  local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'waited', 'held', 'vc')
  if row[1] == 'active' and row[3] and tonumber(row[2]) == token then
    local left = releaseActive(KEYS[2], KEYS[1], row[3], id)
    local held = row[5]
    local heldTenant = tenantOfHeld(held)
    if heldTenant then tenantOps().release(base, heldTenant, 1, KEYS[5], KEYS[6], KEYS[8]) end
    if row[6] then fairOps().settle(base, jobKey, row[3], heldTenant, row[6], now) end
    if held and string.byte(held) == 49 then owed = owed + 1 end
    buryJob(base, jobKey, id, row[3], reason, now, KEYS[7], KEYS[9], row[4])
    if left == 0 then indexForget(KEYS[10], row[3], KEYS[4], KEYS[3], KEYS[11], KEYS[12], heldTenant) end
    reopenLane(base, row[3], left, KEYS[5], KEYS[6], KEYS[4], KEYS[3], KEYS[2], KEYS[8])
    buried = buried + 1
  end
end
if owed > 0 then queueRoom(KEYS[8], KEYS[1], owed) end
return buried
