--- @include "ringJoin"
--- @include "indexForget"
--[[
  laneTimers(base, now, k) -> nextAt (-1 when none), rated
  Applies the lane timers that are due, at most 32 per call, and returns when the next one falls
  due, so an idle consumer can block until then. `p:<group>` ends a timed pause (the lane resumes
  exactly as resume would); `r:<group>` reopens a lane its rate had parked (it leaves the ring
  set it was kept in and rejoins the ring at the tail when serviceable). `rated` tells whether any
  lane of the queue has a rate ceiling. While one has, the set holds a marker member '~rate' with a
  score no clock reaches, so a queue with neither timers nor rates pays this one read and no more.
  `k` names the keys: timers, grate, gpause, paused, ring, ringset, glimit, gactive, wake, lanes, gweight.
]]
local TIMER_NEVER = 9e15
local function laneTimers(base, now, k)
  local head = rcall('ZRANGE', k.timers, '0', '0', 'WITHSCORES')
  if head[2] == nil then return -1, false end
  local rated = rcall('HLEN', k.grate) > 0
  local first = tonumber(head[2])
  if first <= now then
    local due = rcall('ZRANGEBYSCORE', k.timers, '-inf', string.format('%d', now), 'LIMIT', '0', '32')
    for i = 1, #due do
      local member = due[i]
      local group = string.sub(member, 3)
      rcall('ZREM', k.timers, member)
      if string.sub(member, 1, 2) == 'p:' then
        rcall('SREM', k.paused, group)
        rcall('HDEL', k.gpause, group)
        -- NOTE: the pause was a setting; an idle lane without another leaves the lane index.
        if not rcall('HGET', k.gactive, group) then indexForget(k.lanes, group, k.paused, k.glimit, k.gweight, k.grate) end
      else
        rcall('SREM', k.ringset, group)
      end
      ringJoin(base, group, k.ring, k.ringset, k.paused, k.glimit, k.gactive, k.wake)
    end
    head = rcall('ZRANGE', k.timers, '0', '0', 'WITHSCORES')
    if head[2] == nil then return -1, rated end
    first = tonumber(head[2])
  end
  if first >= TIMER_NEVER then return -1, rated end
  return first, rated
end
