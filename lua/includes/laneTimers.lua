--- @include "ringJoin"
--- @include "indexForget"
--[[
  laneTimers(base, now, k) -> nextAt (-1 when none), rated
  Applies the lane timers that are due, at most 32 per call (in compat mode at most 2 that reopen a
  rated lane, whose join scans the ring), and returns when the next one falls due, so an idle
  consumer can block until then. `p:<group>` ends a timed pause (the lane resumes
  exactly as resume would); `r:<group>` reopens a lane its rate had parked (it leaves the ring
  set it was kept in, its tenant's under a tenant, and rejoins the ring at the tail when serviceable). `rated` tells whether any
  lane of the queue has a rate ceiling. `t:<tenant>` ends a tenant's timed pause (see pauseTenant). While one has, the set holds a marker member '~rate' with a
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
    local scans = 0
    for i = 1, #due do
      local member = due[i]
      local group = string.sub(member, 3)
      local kind = string.sub(member, 1, 2)
      local pause = kind == 'p:'
      -- NOTE: in compat mode a lane its rate parked may be on the ring list or not (another writer
      -- may have put it back), so its join scans the ring (LPOS, about 2 ms at 100,000 lanes): at
      -- most 2 such joins a call keep the call near 5 ms; the others wait for the next call.
      if kind == 't:' then
        -- NOTE: a tenant's timed pause ends (see pauseTenant): its entry rejoins the queue's ring.
        rcall('ZREM', k.timers, member)
        rcall('HDEL', base .. 't:' .. group .. ':info', 'paused', 'until', 'reason')
        tenantOps().sync(base, group, k.ring, k.ringset, k.wake)
      elseif pause or not compatMode() or scans < 2 then
        local placed
        if pause then
          -- NOTE: a lane paused until now is off the ring (both writers keep a paused lane off it), so
          -- it joins without a scan in compat mode too; one another writer resumed may be on it.
          if rcall('SREM', k.paused, group) == 1 then placed = 'off' end
          rcall('HDEL', k.gpause, group)
          -- NOTE: the pause was a setting; an idle lane without another leaves the lane index.
          if not rcall('HGET', k.gactive, group) then indexForget(k.lanes, group, k.paused, k.glimit, k.gweight, k.grate) end
        else
          scans = scans + 1
          local _, set = laneRing(base, group, k.ring, k.ringset)
          rcall('SREM', set, group)
        end
        rcall('ZREM', k.timers, member)
        ringJoin(base, group, k.ring, k.ringset, k.paused, k.glimit, k.gactive, k.wake, false, placed)
      end
    end
    head = rcall('ZRANGE', k.timers, '0', '0', 'WITHSCORES')
    if head[2] == nil then return -1, rated end
    first = tonumber(head[2])
  end
  if first >= TIMER_NEVER then return -1, rated end
  return first, rated
end
