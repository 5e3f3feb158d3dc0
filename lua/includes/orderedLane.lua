--[[
  orderedLane: the lane kind that keeps submit order (ordered(queue, group, true)). An ordered lane
  is listed in emq:{q}:gordered (group -> the lane's own ceiling, '' for none) and its ceiling in
  emq:{q}:glimit is held at 1, so the claim paths, which already honour ceilings, serve at most one
  of its jobs at a time and need no read of their own. While its failed head waits out a backoff
  the ceiling is 0, which keeps the lane off the ring, and the job's row carries `ohold`; whatever
  takes that job out of the schedule (its promotion, a cancel, a drain) lets the lane go again.
  The held job's id is kept in emq:{q}:gordered too, as field '{r}' .. group ('{' never opens
  a lane's name), through an ordered(false): a lane ordered again while that retry is still due is
  held again, so the retry still goes before every later job (fairness 9).
  In compat mode the reference's timers would promote a held job without letting the lane go, so
  there a failed head is retried at once, at the head, with no backoff.
]]

--- @shared orderedFns: its functions take what a call read as arguments
local orderedFns
local ORDERED_HELD = '{r}'

-- The ordered lane's operations, made on first use: a script that never meets one makes none.
local function orderedLane()
  if orderedFns then return orderedFns end
  local O = {}
  orderedFns = O

  -- Whether the lane is ordered (one HEXISTS; asked only when a job of the lane fails with a backoff).
  function O.is(base, group)
    return rcall('HEXISTS', base .. 'gordered', group) == 1
  end

  -- Holds an ordered lane for its failed head `id` through the job's backoff.
  function O.hold(base, group, id, glimitKey)
    rcall('HSET', glimitKey, group, 0)
    rcall('HSET', base .. 'job:' .. id, 'ohold', 1)
    rcall('HSET', base .. 'gordered', ORDERED_HELD .. group, id)
  end

  -- Lets a held lane go (its held job left the schedule): the ceiling is 1 again while the lane is
  -- still ordered. The caller joins the lane to the ring when it is serviceable.
  function O.unhold(base, group, id, glimitKey)
    rcall('HDEL', base .. 'job:' .. id, 'ohold')
    if rcall('HGET', base .. 'gordered', ORDERED_HELD .. group) == id then
      rcall('HDEL', base .. 'gordered', ORDERED_HELD .. group)
    end
    if rcall('HEXISTS', base .. 'gordered', group) == 1 then rcall('HSET', glimitKey, group, 1) end
  end

  -- The ceiling an ordered(true) gives the lane: 0 while a retry it was held for is still due (its
  -- row still carries ohold), else 1. A held id whose row no longer does is forgotten.
  function O.ceiling(base, group)
    local field = ORDERED_HELD .. group
    local id = rcall('HGET', base .. 'gordered', field)
    if not id then return 1 end
    if rcall('HGET', base .. 'job:' .. id, 'ohold') then return 0 end
    rcall('HDEL', base .. 'gordered', field)
    return 1
  end

  return O
end
