--[[
  drain (one page): remove up to `budget` pending and scheduled jobs, of one lane or of every lane,
  and count them in the `cancelled` total. The caller calls again with the phase and offset this
  page returns until the phase is 'done'. Between pages the ring, the ring set, the lane index and
  the counters are consistent, so a drain that stops halfway leaves a sound queue.
  Phases:
    's' the schedule. Every lane: its head page, removed whole. One lane: read from the tail by
        rank (`offset` entries already kept), so a promote taking due jobs off the head moves
        nothing that is still to be read; the ids of other lanes are kept.
    'r' every lane: the ring, a lane at a time from its head (ringOps .shift: LPOP, no scan); a lane deeper
        than what is left of the budget gives a page of its jobs and stays at the head. A tenant's
        entry is drained through its own ring the same way (emq:{q}:t:<tenant>:ring|ringset,
        derived from ARGV[1]), and leaves the ring set once that ring is empty.
    'l' the lanes the index scores above 0 that were not on the ring (paused, at their ceiling,
        parked by their rate, or joined since), or the one lane. A lane found on the ring set
        leaves the ring by ringSync (LREM, over a ring that then holds only lanes joined since).

  KEYS[1]  ring      emq:{q}:ring
  KEYS[2]  ringset   emq:{q}:ringset
  KEYS[3]  paused    emq:{q}:paused
  KEYS[4]  glimit    emq:{q}:glimit
  KEYS[5]  gactive   emq:{q}:gactive
  KEYS[6]  schedule  emq:{q}:schedule
  KEYS[7]  wake      emq:{q}:wake
  KEYS[8]  dedup     emq:{q}:dedup
  KEYS[9]  lanes     emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[10] stats     emq:{q}:stats     (totals: `cancelled`)
  KEYS[11] gweight   emq:{q}:gweight
  KEYS[12] grate     emq:{q}:grate
  KEYS[13] timers    emq:{q}:timers    (a lane parked by its rate has r:<group> here)

  ARGV[1] base    'emq:{q}:'
  ARGV[2] group   the lane to drain, '' for every lane
  ARGV[3] phase   's' | 'r' | 'l' (every lane starts at 's', one lane too)
  ARGV[4] offset  phase 's' of one lane: schedule entries from the tail already read and kept
  ARGV[5] budget  jobs at most to remove in this page (1..1000)

  Active and dead jobs stay.

  Reply: { removed, phase, offset } (phase 'done' when nothing is left).
  Clock: none.
  Derived keys: job rows and lanes (from the ring, the index or ARGV[2]), emq:{q}:gdelayed (see
  laneDepth), emq:{q}:gparked and the lanes' tenant keys (see laneParked), from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "dropJob"
--- @include "laneDepth"
--- @include "laneShrunk"
--- @include "headEntry"
--- @include "orderedLane"
--- @include "ringJoin"
--- @include "laneParked"

local base, only, phase, offset, budget = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if KEYS[1] ~= base .. 'ring' or not offset or offset < 0 or not budget or budget < 1 or budget > 1000
   or (phase ~= 's' and phase ~= 'r' and phase ~= 'l') then
  return redis.error_reply('ERR echomq: drainLanes arguments do not match its keys')
end
local k = { ring = KEYS[1], ringset = KEYS[2], paused = KEYS[3], glimit = KEYS[4], gactive = KEYS[5], wake = KEYS[7],
  lanes = KEYS[9], gweight = KEYS[11], grate = KEYS[12], timers = KEYS[13] }
local removed = 0
-- NOTE: asked once per page (EXISTS of the setting keys), so idle lanes of a queue without settings leave the index in one ZREM.
learnSettings(KEYS[3], KEYS[4], KEYS[11], KEYS[12])

-- Takes up to `want` pending jobs off the head of a lane; how many.
local function takePending(group, want)
  local popped = rcall('ZPOPMIN', base .. 'g:' .. group .. ':pending', string.format('%d', want))
  for i = 1, #popped, 2 do dropJob(base .. 'job:' .. popped[i], popped[i], KEYS[8]) end
  return #popped / 2
end

local function finish(nextPhase, nextOffset)
  if removed > 0 then rcall('HINCRBY', KEYS[10], 'cancelled', string.format('%d', removed)) end
  return { removed, nextPhase, nextOffset }
end

-- Takes one job out of the schedule (its id already read there, its row `row`: group, attempts,
-- ohold): out of the lane's counts of delayed submits and parked jobs, and a drained retry that
-- held its ordered lane lets the lane go (see orderedLane).
local function takeScheduled(id, jobKey, row, delayed)
  rcall('ZREM', KEYS[6], id)
  if delayed then delayedOut(base, row[1], row[2]) end
  parkedOut(base, row[1], KEYS[9])
  if row[3] then
    orderedLane().unhold(base, row[1], id, KEYS[4])
    ringJoin(base, row[1], KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[7])
  end
  dropJob(jobKey, id, KEYS[8])
end

if phase == 's' then
  if only == '' then
    local ids = rcall('ZRANGE', KEYS[6], '0', string.format('%d', budget - 1))
    local delayed = rcall('EXISTS', base .. 'gdelayed') == 1
    for i = 1, #ids do
      local jobKey = base .. 'job:' .. ids[i]
      takeScheduled(ids[i], jobKey, rcall('HMGET', jobKey, 'group', 'attempts', 'ohold'), delayed)
    end
    removed = #ids
    if #ids < budget then return finish('r', 0) end
    return finish('s', 0)
  end
  local ids = rcall('ZRANGE', KEYS[6], string.format('%d', -(offset + budget)), string.format('%d', -(offset + 1)))
  for i = 1, #ids do
    local jobKey = base .. 'job:' .. ids[i]
    local row = rcall('HMGET', jobKey, 'group', 'attempts', 'ohold')
    if row[1] == only then
      takeScheduled(ids[i], jobKey, row, true)
      removed = removed + 1
    end
  end
  if #ids < budget then return finish('l', 0) end
  return finish('s', offset + #ids - removed)
end

if phase == 'r' then
  -- Drains the lanes of one ring list (the queue's, or a tenant's), a lane at a time from its head;
  -- true when the budget ran out with the ring not yet empty.
  local function drainRing(ringKey, lk)
    while removed < budget do
      local group = ringOps().head(base, ringKey)
      if not group then return false end
      if string.sub(group, 1, 3) == '{t}' then
        -- NOTE: a tenant's entry (see laneRing): its own ring is drained the same way, and the entry
        -- leaves the queue's ring (and its set) once that ring is empty; else it stays at the head.
        local t = base .. 't:' .. string.sub(group, 4)
        local tk = {}
        for name, key in pairs(k) do tk[name] = key end
        tk.ring, tk.ringset = t .. ':ring', t .. ':ringset'
        if drainRing(tk.ring, tk) then return true end
        ringOps().shift(base, ringKey)
        rcall('SREM', lk.ringset, group)
      else
        local want = budget - removed
        local taken = takePending(group, want)
        removed = removed + taken
        -- NOTE: ZPOPMIN took fewer than asked only when it emptied the lane.
        if taken == want and rcall('ZCARD', base .. 'g:' .. group .. ':pending') > 0 then
          -- NOTE: deeper than this page: it stays at the head, on the ring set, for the next page.
          laneShrunk(base, group, lk, true)
          return true
        end
        ringOps().shift(base, ringKey)
        laneShrunk(base, group, lk, true, 0)
      end
    end
    return ringOps().len(base, ringKey) > 0
  end
  if drainRing(KEYS[1], k) then return finish('r', 0) end
  if ringOps().len(base, KEYS[1]) == 0 then return finish('l', 0) end
  return finish('r', 0)
end
-- phase 'l'
if only ~= '' then
  removed = takePending(only, budget)
  laneShrunk(base, only, k, false)
  if removed < budget then return finish('done', 0) end
  return finish('l', 0)
end
-- NOTE: lanes only, not their head entries (see includes/headEntry).
local groups = rcall('ZRANGEBYSCORE', KEYS[9], '(0', DEPTH_BELOW_HEADS, 'LIMIT', '0', string.format('%d', budget))
if #groups == 0 then return finish('done', 0) end
for i = 1, #groups do
  if removed >= budget then break end
  removed = removed + takePending(groups[i], budget - removed)
  laneShrunk(base, groups[i], k, false)
end
return finish('l', 0)
