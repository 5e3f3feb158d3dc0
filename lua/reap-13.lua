--[[
  reap: return jobs whose lease expired to their own lane at their mint position (the head), or to
  the dead set when their attempts are spent; their lanes' active counts drop and the lanes rejoin
  the ring. An expired id without a row or a group goes where strayJob puts it (the dead set, or in
  compat mode a flat job back to the flat pending set). Bounded: at most ARGV[3] jobs per call; the caller calls again while it gets that many.

  KEYS[1] active    emq:{q}:active
  KEYS[2] gactive   emq:{q}:gactive
  KEYS[3] glimit    emq:{q}:glimit
  KEYS[4] paused    emq:{q}:paused
  KEYS[5] ring      emq:{q}:ring
  KEYS[6] ringset   emq:{q}:ringset
  KEYS[7] dead      emq:{q}:dead
  KEYS[8] wake      emq:{q}:wake
  KEYS[9] stats     emq:{q}:stats     (counters; `reaped` counts the jobs handled here)
  KEYS[10] lanes    emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[11] gweight  emq:{q}:gweight
  KEYS[12] grate    emq:{q}:grate
  KEYS[13] pending  emq:{q}:pending   (the flat pending set: flat jobs in compat mode)

  ARGV[1] base         'emq:{q}:'
  ARGV[2] maxAttempts  the default when a job has none of its own (>= 1)
  ARGV[3] max          how many expired leases to handle at most (>= 1)

  Reply: the number of jobs reaped (back to a lane or dead).
  Clock: server TIME (what has expired, time of death).
  Pub/sub: publishes to channel emq:{q}:done when a job dies and a waiter marked its row.
  Derived keys: emq:{q}:job:<id> and the jobs' lanes, from ARGV[1] pinned to KEYS[5].
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "indexGrew"
--- @include "queueRoom"
--- @include "nowMs"
--- @include "ringRejoin"
--- @include "releaseActive"
--- @include "strayJob"
--- @include "indexForget"
--- @include "buryJob"
--- @include "markReady"

local base, defaultMax, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if KEYS[5] ~= base .. 'ring' or not defaultMax or defaultMax < 1 or not max or max < 1 then
  return redis.error_reply('ERR echomq: reap arguments do not match its keys')
end
local now = nowMs()
local expired = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now - 1, 'LIMIT', 0, max)
local owed = 0
for i = 1, #expired do
  local id = expired[i]
  local jobKey = base .. 'job:' .. id
  local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'max', 'base', 'waited', 'held', 'vc')
  local group = row[3]
  if not group then
    rcall('ZREM', KEYS[1], id)
    local hasRow = row[1] ~= false
    strayJob(base, id, hasRow, hasRow and 'lease expired on a job with no group' or 'lease expired on a job with no row',
      now, { dead = KEYS[7], pending = KEYS[13], stats = KEYS[9] })
  else
    -- NOTE: an expired lease in `time` fairness is charged its lease, to the deadline (see fairOps).
    local deadline = row[8] and tonumber(rcall('ZSCORE', KEYS[1], id))
    local left = releaseActive(KEYS[2], KEYS[1], group, id)
    local held = row[7]
    local heldTenant = tenantOfHeld(held)
    if heldTenant then tenantOps().release(base, heldTenant, 1, KEYS[5], KEYS[6], KEYS[8]) end
    if row[8] then fairOps().settle(base, jobKey, group, heldTenant, row[8], deadline or now) end
    if held and string.byte(held) == 49 then owed = owed + 1 end
    local spent = (tonumber(row[2]) or 0) - (tonumber(row[5]) or 0) >= (tonumber(row[4]) or defaultMax)
    if spent then
      buryJob(base, jobKey, id, group, 'lease expired on attempt ' .. (row[2] or '?'), now, KEYS[7], KEYS[9], row[6])
      if left == 0 then indexForget(KEYS[10], group, KEYS[4], KEYS[3], KEYS[11], KEYS[12], heldTenant) end
    else
      rcall('HSET', jobKey, 'state', 'pending')
      markReady(jobKey, now, KEYS[10], group)
      local laneKey = base .. 'g:' .. group .. ':pending'
      rcall('ZADD', laneKey, 0, id)
      indexGrew(KEYS[10], group, laneKey, 1)
    end
    ringRejoin(base, group, left, not spent, KEYS[5], KEYS[6], KEYS[4], KEYS[3], KEYS[2], KEYS[8])
  end
end
if #expired > 0 then rcall('HINCRBY', KEYS[9], 'reaped', string.format('%d', #expired)) end
if owed > 0 then queueRoom(KEYS[8], KEYS[1], owed) end
return #expired
