--- @include "indexGrew"
--- @include "laneDepth"
--- @include "ringJoin"
--- @include "strayJob"
--- @include "markReady"
--- @include "orderedLane"
--- @include "laneParked"
--[[
  promoteDue(base, now, max, scheduleKey, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, indexKey, strays)
  Moves at most `max` scheduled jobs whose due time has come into their own lanes, at their mint
  position (noting the due time in the row: markReady), and rings those lanes. Returns the number moved and the next due time still waiting
  (-1 when none), so an idle consumer knows how long it may block. The earliest entry is read
  first: when nothing is due (the common case) that one read is all it costs. The lane index
  (indexKey) gains the moved jobs, once per lane. A job of a tenant puts its lane back under it
  (see laneRing). A due id without a row or a group goes where
  strayJob puts it (`strays` names its keys: dead, pending); it joins no lane, so not the index.
  A delayed submit promoted leaves its lane's count of them (see laneDepth); the retry an ordered
  lane was held for lets the lane go (see orderedLane).
]]
local function promoteDue(base, now, max, scheduleKey, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, indexKey, strays)
  local head = rcall('ZRANGE', scheduleKey, '0', '0', 'WITHSCORES')
  if not head[2] then return 0, -1 end
  local first = tonumber(head[2])
  if max <= 0 or first > now then return 0, first end
  local moved = 0
  local added, groups = {}, {}
  -- NOTE: asked once per call: only a queue with delayed submits scheduled reads a row's attempts.
  local delayed = rcall('EXISTS', base .. 'gdelayed') == 1
  local due = rcall('ZRANGEBYSCORE', scheduleKey, '-inf', now, 'WITHSCORES', 'LIMIT', 0, max)
  for i = 1, #due, 2 do
    local id = due[i]
    local jobKey = base .. 'job:' .. id
    rcall('ZREM', scheduleKey, id)
    local row = delayed and rcall('HMGET', jobKey, 'group', 'held', 'ohold', 'attempts') or rcall('HMGET', jobKey, 'group', 'held', 'ohold')
    local group = row[1]
    if group then
      if delayed then delayedOut(base, group, row[4]) end
      parkedOut(base, group)
      if row[3] then orderedLane().unhold(base, group, id, glimitKey) end
      if row[2] and #row[2] > 1 then tenantOps().giveBack(base, jobKey, group, string.sub(row[2], 2), gactiveKey, ringSetKey) end
      rcall('HSET', jobKey, 'state', 'pending')
      markReady(jobKey, tonumber(due[i + 1]), indexKey, group)
      rcall('ZADD', base .. 'g:' .. group .. ':pending', 0, id)
      -- NOTE: filled, as a submit's: the lane has just gained a job, so in compat mode its depth says
      -- where it is and no ring scan is needed.
      ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, true)
      if not added[group] then
        added[group] = 0
        groups[#groups + 1] = group
      end
      added[group] = added[group] + 1
    else
      local hasRow = rcall('EXISTS', jobKey) == 1
      strayJob(base, id, hasRow, hasRow and 'scheduled job has no group' or 'scheduled job has no row', now, strays)
    end
    moved = moved + 1
  end
  for i = 1, #groups do
    indexGrew(indexKey, groups[i], base .. 'g:' .. groups[i] .. ':pending', added[groups[i]])
  end
  local nxt = rcall('ZRANGE', scheduleKey, '0', '0', 'WITHSCORES')
  if nxt[2] then return moved, tonumber(nxt[2]) end
  return moved, -1
end
