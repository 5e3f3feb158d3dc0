--[[
  A lane's depth ceiling (maxDepth): the one place that knows it.
  emq:{q}:gdepth (hash group -> n) holds the ceilings; a submit that would leave a lane holding more
  than n jobs pending or scheduled is refused, nothing written. Pending jobs are the lane's sorted
  set; the scheduled ones a ceiling counts are the lane's delayed submits not yet due, counted in
  emq:{q}:gdelayed (hash group -> count) for every lane, whether or not it has a ceiling, so a
  ceiling set later counts the jobs already scheduled. A retry waiting out its backoff is a job
  already admitted: it is not counted (the contract: retries and reaps never count against it).
  A job in the schedule whose attempts are '0' was never served, so it is a delayed submit: that is
  how the paths that take a job off the schedule know to count it out, without a field of its own.
  Both keys are derived from base (the caller pins base to a declared key).

  depthCeilings(base) -> true when some lane of the queue has a ceiling (one EXISTS per call)
  laneDepth(base, group) -> room, n: how many more jobs the lane may hold, or nil when it has no ceiling
  delayedIn(base, group): a delayed submit went into the schedule
  delayedOut(base, group, attempts): a job left the schedule (promoted, cancelled, drained); counted
    out when it was a delayed submit (attempts '0')
  knownJob(base, id, dedup, own, group, payload, dedupKey) -> true when admit would reply 'dup'
    (nothing new admitted, so a ceiling does not refuse it)
]]
local function depthCeilings(base)
  return rcall('EXISTS', base .. 'gdepth') == 1
end

local function laneDepth(base, group)
  local n = tonumber(rcall('HGET', base .. 'gdepth', group))
  if not n then return nil end
  local held = rcall('ZCARD', base .. 'g:' .. group .. ':pending') + (tonumber(rcall('HGET', base .. 'gdelayed', group)) or 0)
  return n - held, n
end

local function delayedIn(base, group)
  rcall('HINCRBY', base .. 'gdelayed', group, '1')
end

local function delayedOut(base, group, attempts)
  if attempts ~= '0' or not group then return end
  -- NOTE: a job scheduled before this count existed (an upgrade) must not drive it below 0.
  if rcall('HINCRBY', base .. 'gdelayed', group, '-1') <= 0 then rcall('HDEL', base .. 'gdelayed', group) end
end

local function knownJob(base, id, dedup, own, group, payload, dedupKey)
  if dedup ~= '' then
    local existing = rcall('HGET', dedupKey, dedup) or rcall('HGET', base .. 'kept:' .. dedup, 'id')
    if existing and rcall('EXISTS', base .. 'job:' .. existing) == 1 then return true end
  end
  local jobKey = base .. 'job:' .. id
  if rcall('EXISTS', jobKey) == 0 then return false end
  if own then return true end
  local row = rcall('HMGET', jobKey, 'group', 'payload')
  return row[1] == group and row[2] == payload
end
