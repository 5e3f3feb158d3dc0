--- @include "pushWake"
--- @include "learnSettings"
--- @include "compatMode"
--- @include "laneRing"
--[[
  ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, filled, placed, tokens, tenant)
  Puts a lane on the ring when it is serviceable (non-empty, unpaused, under its ceiling) and not
  on it yet; membership is read from the ring set, so this is O(1) in the number of lanes.
  Only adds: the hot paths (submit, complete, fail, reap, promote, retryDead) can only make a lane
  more serviceable, so they never scan the ring. Pushes a wake token whenever the lane gained work
  (`tokens` of them when the caller added that many jobs at once).
  `filled` is true when the caller has just added to the lane (it is then known to be non-empty).
  In compat mode the ring set cannot be trusted (another writer moves lanes on and off the ring
  without it). A submit or a promoted due job (`filled`) still needs no scan, because both writers
  keep an empty lane off the ring and a serviceable one on it (bar a lane parked by its rate): a
  lane the job made non-empty is not on the ring yet, and one that already had work is on it, or
  parked. A caller that knows where the lane was says so in `placed` ('on' or 'off' the ring; see
  reopenLane, submitMany and laneTimers), in either mode: a lane 'on' the ring only gets its wake
  token.
  Every other join reads membership from the ring list (LPOS, O(ring length), as the reference
  does); a lane its rate parked may then rejoin, and the next claim that reaches it parks it again.
  A lane under a tenant joins its tenant's ring, and the tenant's entry joins the queue's ring
  when it is not on it and the tenant is open (see laneRing).
  `tenant`: the lane's tenant when the caller has read it in this script ('' for none; see laneRing).
  Returns 1 when the lane joined the ring, 0 otherwise.
]]
local function ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, filled, placed, tokens, known)
  if not filled and rcall('ZCARD', base .. 'g:' .. group .. ':pending') == 0 then return 0 end
  if anyPaused and rcall('SISMEMBER', pausedKey, group) == 1 then return 0 end
  local lim
  if anyLimit then lim = tonumber(rcall('HGET', glimitKey, group)) end
  if lim and (tonumber(rcall('HGET', gactiveKey, group)) or 0) >= lim then return 0 end
  pushWake(wakeKey, tokens)
  if compatMode() then
    local on
    if filled then
      on = rcall('ZCARD', base .. 'g:' .. group .. ':pending') > 1
    elseif placed then
      on = placed == 'on'
    else
      on = rcall('LPOS', ringKey, group) ~= false
    end
    if on then return 0 end
    rcall('SADD', ringSetKey, group)
    rcall('RPUSH', ringKey, group)
    return 1
  end
  -- NOTE: a lane known to be on the ring (or parked there by its rate) needs no SADD to say so.
  if placed == 'on' then return 0 end
  local ring, set, tenant = laneRing(base, group, ringKey, ringSetKey, known)
  if rcall('SADD', set, group) == 1 then
    -- NOTE: an ack learns the queue's fairness here, not before (one HMGET), and in `jobs` pushes
    -- itself, so it builds no ring operations.
    if ringPlain == nil then fairMode(base) end
    if ringPlain then rcall('RPUSH', ring, group) else ringOps().push(base, ring, group) end
    if tenant then tenantOps().join(base, ringKey, ringSetKey, tenant, nil, true) end
    return 1
  end
  return 0
end
