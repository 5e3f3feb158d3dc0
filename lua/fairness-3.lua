--[[
  fairness: choose what a lane's share counts (field `fair` of meta: absent for `jobs`, else `cost`
  or `time`), and move the rings' entries to the order that fairness uses (see ringOps): a list
  in `jobs`, a virtual-time set in `cost` and `time`. The change takes effect at once: from the next
  claim every ring step moves a few entries over first (field `fairMove` says some may be left),
  and this script moves up to `budget` entries a call; the caller calls again with the cursor it
  returns until it is ''. No lane's jobs move: only the rings' order of lanes and tenants does, and
  each entry that moves into virtual time starts at its ring's virtual time (idling banks nothing).
  Between `cost` and `time` (both virtual time) nothing moves.

  KEYS[1] meta     emq:{q}:meta
  KEYS[2] ring     emq:{q}:ring
  KEYS[3] tenants  emq:{q}:tenants  (the tenants with lanes: their rings move too)

  ARGV[1] base     'emq:{q}:'; must be the prefix of KEYS[2]
  ARGV[2] by       'jobs' | 'cost' | 'time', or '' to go on moving after an earlier call
  ARGV[3] cursor   'q' to start (the queue's ring), then what the last call returned
  ARGV[4] budget   entries to move at most, 1..1000

  Reply: the cursor for the next call, '' when every ring is in its order (fairMove is then cleared).
  Clock: none.
  Derived keys: the tenants' rings emq:{q}:t:<T>:ring and every ring's <ring>:vt and <ring>:owed,
  the hash emq:{q}:vtags (see fairOps; back in `jobs` the owed sets and vtags are deleted), from
  ARGV[1] pinned to KEYS[2].
  Cost: O(budget · log n) per call; the tenants are walked with SSCAN, 100 a page.
]]
local rcall = redis.call
--- @include "laneRing"

local base, by, cursor, budget = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if KEYS[2] ~= base .. 'ring' or KEYS[3] ~= base .. 'tenants' or not budget or budget < 1 or budget > 1000
   or (by ~= '' and by ~= 'jobs' and by ~= 'cost' and by ~= 'time') then
  return redis.error_reply('ERR echomq: fairness arguments do not match its keys')
end
if by ~= '' then
  local before = rcall('HGET', KEYS[1], 'fair')
  if by == 'jobs' then rcall('HDEL', KEYS[1], 'fair') else rcall('HSET', KEYS[1], 'fair', by) end
  -- NOTE: the mean time is `time`'s alone; a meta hash left with nothing else lets claims skip it.
  if by ~= 'time' then rcall('HDEL', KEYS[1], 'tmean') end
  -- NOTE: only a change between a list and virtual time moves entries; `cost` <-> `time` keeps them.
  if (before and true or false) ~= (by ~= 'jobs') then rcall('HSET', KEYS[1], 'fairMove', '1') end
end
fairBy, anyTenant = nil, nil
fairMode(base)
if not fairMoving then return '' end

local left = budget
-- Moves what `ring` holds in the other order, up to what is left of the budget; true when it is done.
local function moveRing(ring)
  while left > 0 do
    local moved = ringOps().move(base, ring, math.min(left, 100))
    left = left - moved
    if moved == 0 then return true end
  end
  return false
end

if cursor == 'q' then
  if not moveRing(KEYS[2]) then return 'q' end
  cursor = 't:0'
end
local at = string.match(cursor, '^t:(%d+)$')
if not at then return redis.error_reply('ERR echomq: fairness cursor is not one it returned') end
repeat
  local page = rcall('SSCAN', KEYS[3], at, 'COUNT', '100')
  for _, tenant in ipairs(page[2]) do
    -- NOTE: a ring left half-moved is seen again: the same page is read again from `at`.
    if not moveRing(base .. 't:' .. tenant .. ':ring') then return 't:' .. at end
    if not fairBy then rcall('DEL', base .. 't:' .. tenant .. ':ring:owed') end
  end
  at = page[1]
until at == '0'
rcall('HDEL', KEYS[1], 'fairMove')
-- NOTE: back in `jobs`, virtual time is gone: the rings' owed sets (the tenants' were dropped
-- as their rings moved, below) and the empty rings' V.
if not fairBy then rcall('DEL', base .. 'vtags', KEYS[2] .. ':owed') end
return ''
