--- @include "compatMode"
--- @include "laneRing"
--- @include "headWait"
--[[
  laneRow(base, group, now, keys, out) -> appends one lane's LaneInfo row to `out`
  The one reader of a lane's state for people and tools (lane, lanes and the lane scans), so every
  read reports the same shape: group, pending, active, weight, limit (-1 none), paused (0/1),
  inRing (0/1), rateMax (-1 none), ratePerMs (-1 none), pausedUntil (-1 none), pauseReason ('' none),
  tenant ('' none), maxDepth (-1 none; emq:{q}:gdepth, derived from base, see laneDepth), ordered
  (0/1; emq:{q}:gordered, derived from base, see orderedLane), headWaitMs (-1 none; see headWait). A lane under a tenant is inRing while it is on its tenant's ring and the
  tenant's entry on the queue's (see laneRing).
  `keys` names the queue's hashes and sets: ringset, paused, glimit, gactive, gweight, grate, gpause,
  timers, ring (in compat mode inRing is read from the ring list, O(ring length)). The lane key
  is derived from `base`, which the caller has pinned to a declared key.
  NOTE: reads apply the server clock as the next claim will: a timed pause whose end has passed is
  reported as over (paused 0, no pausedUntil or reason), and a lane due back on the ring (its pause
  over, or its rate window reopened) is reported inRing when it is serviceable; the next claim (or
  readStats, locateJob, which apply the due timers first) makes the stored state match. Cost: O(1) in the number of lanes.
]]
local function laneRow(base, group, now, keys, out)
  local pending = rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  local active = tonumber(rcall('HGET', keys.gactive, group)) or 0
  local limit = tonumber(rcall('HGET', keys.glimit, group))
  -- NOTE: an ordered lane's ceiling in glimit is the kind's own (1, or 0 while held: see
  -- orderedLane); the lane's own ceiling, the one reported, waits in emq:{q}:gordered.
  local own = rcall('HGET', base .. 'gordered', group)
  local paused = rcall('SISMEMBER', keys.paused, group) == 1
  local inRing
  local _, set, tenant = laneRing(base, group, keys.ring, keys.ringset)
  if compatMode() then
    inRing = rcall('LPOS', keys.ring, group) ~= false
  else
    inRing = rcall('SISMEMBER', set, group) == 1
    if inRing and tenant then inRing = rcall('SISMEMBER', keys.ringset, TENANT_MARK .. tenant) == 1 end
  end
  local rateMax, ratePer = -1, -1
  local rate = rcall('HGET', keys.grate, group)
  if rate then
    local m, p = string.match(rate, '^(%d+) (%d+)$')
    rateMax, ratePer = tonumber(m) or -1, tonumber(p) or -1
  end
  local pausedUntil, reason = -1, ''
  local info = rcall('HGET', keys.gpause, group)
  local due = false
  if info and paused then
    local bar = string.find(info, '|', 1, true)
    local untilText = bar and string.sub(info, 1, bar - 1) or ''
    reason = bar and string.sub(info, bar + 1) or ''
    local untilMs = tonumber(untilText)
    if untilMs then
      if untilMs <= now then
        paused, reason, due = false, '', true
      else
        pausedUntil = untilMs
      end
    end
  end
  local reopenAt = tonumber(rcall('ZSCORE', keys.timers, 'r:' .. group))
  if reopenAt then
    -- NOTE: a lane parked by its rate keeps its place in the ring set but is off the ring list.
    inRing = false
    if reopenAt <= now then due = true end
  end
  if due then
    inRing = pending > 0 and not paused and not (limit and active >= limit)
  end
  out[#out + 1] = group
  out[#out + 1] = pending
  out[#out + 1] = active
  out[#out + 1] = tonumber(rcall('HGET', keys.gweight, group)) or 1
  if own then out[#out + 1] = tonumber(own) or -1 else out[#out + 1] = limit or -1 end
  out[#out + 1] = paused and 1 or 0
  out[#out + 1] = inRing and 1 or 0
  out[#out + 1] = rateMax
  out[#out + 1] = ratePer
  out[#out + 1] = pausedUntil
  out[#out + 1] = reason
  out[#out + 1] = tenant or ''
  out[#out + 1] = tonumber(rcall('HGET', base .. 'gdepth', group)) or -1
  out[#out + 1] = own and 1 or 0
  out[#out + 1] = headWait(base, group, now, pending)
end
