--[[
  release: hand a held job back unprocessed (a consumer shutting down, or a weighted extra it never
  started). The job returns to its own lane at its mint position (the head); the attempt counter
  stays where it is, so old tokens stay stale, and the attempt is refunded from the job's budget.

  KEYS[1] job      emq:{q}:job:<id>
  KEYS[2] active   emq:{q}:active
  KEYS[3] gactive  emq:{q}:gactive
  KEYS[4] glimit   emq:{q}:glimit
  KEYS[5] paused   emq:{q}:paused
  KEYS[6] ring     emq:{q}:ring
  KEYS[7] ringset  emq:{q}:ringset
  KEYS[8] wake     emq:{q}:wake
  KEYS[9] lanes    emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base   'emq:{q}:'
  ARGV[2] id     job id
  ARGV[3] token  the attempt number the caller holds

  Reply: 1 when released, 0 when the token is stale or the job unknown.
  Clock: server TIME (when the job is claimable again, see markReady).
  Derived keys: the job's lane, from ARGV[1] pinned to KEYS[6].
]]
local rcall = redis.call
--- @include "indexGrew"
--- @include "queueRoom"
--- @include "ringJoin"
--- @include "releaseActive"
--- @include "nowMs"
--- @include "markReady"

local base, id, token = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[1] ~= base .. 'job:' .. id or KEYS[6] ~= base .. 'ring' or not token then
  return redis.error_reply('ERR echomq: release arguments do not match its keys')
end
local row = rcall('HMGET', KEYS[1], 'state', 'attempts', 'group', 'held', 'vc')
if row[1] ~= 'active' or tonumber(row[2]) ~= token then return 0 end
local group = row[3]
releaseActive(KEYS[3], KEYS[2], group, id)
local held = row[4]
local heldTenant = tenantOfHeld(held)
if heldTenant then tenantOps().release(base, heldTenant, 1, KEYS[6], KEYS[7], KEYS[8]) end
-- NOTE: a hand-back in `time` fairness is charged the time it was held (see fairOps).
if row[5] then fairOps().settle(base, KEYS[1], group, heldTenant, row[5], nowMs()) end
if held and string.byte(held) == 49 then queueRoom(KEYS[8], KEYS[2], 1) end
rcall('HSET', KEYS[1], 'state', 'pending')
rcall('HINCRBY', KEYS[1], 'base', 1)
markReady(KEYS[1], nowMs(), KEYS[9], group)
local laneKey = base .. 'g:' .. group .. ':pending'
rcall('ZADD', laneKey, 0, id)
indexGrew(KEYS[9], group, laneKey, 1)
ringJoin(base, group, KEYS[6], KEYS[7], KEYS[5], KEYS[4], KEYS[3], KEYS[8])
return 1
