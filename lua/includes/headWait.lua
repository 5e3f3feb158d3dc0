--- @include "headReady"
--[[
  headWait(base, group, now, pending) -> how long (ms, server clock) the lane's head job has been
  ready to serve, -1 when the lane holds no pending job (`pending`, its depth the caller has read:
  an empty lane costs no read): the starvation signal (LaneInfo.headWaitMs). Ready
  means its submit, or the moment it came back (a delay or backoff due, a reap, a hand-back,
  retryDead: see markReady), so a delay does not count as waiting (see headReady). Reads only:
  O(log n) in the lane's depth, for the lanes a read returns.
]]
local function headWait(base, group, now, pending)
  if pending == 0 then return -1 end
  local head = rcall('ZRANGE', base .. 'g:' .. group .. ':pending', 0, 0)[1]
  if not head then return -1 end
  local ready = headReady(base, head)
  if not ready then return 0 end
  return math.max(0, math.floor(now - ready))
end
