--- @include "wakeBefore"
--- @include "ringOps"
--[[
  rateWindow(base, group, setting, now) -> a window object for a lane with a rate ceiling
  The lane's claim times are a list, newest first, kept at most `max` long (O(max) memory), in
  `emq:{q}:g:<group>:rate`. The ceiling is strict over any window: a claim at `now` is allowed
  while fewer than `max` claims lie in (now - perMs, now], i.e. while the max-th newest claim is
  at or before now - perMs, so no window of perMs ms ever holds more than `max`. The log expires
  perMs after the last claim, when nothing in it can matter any more.
    w.room(want) -> how many of `want` claims fit now (a binary search of at most log2(want) reads)
    w.record(n)  -> records n claims at `now`; returns the time the window has room again when
                    it is now full, nil otherwise
    w.park(timersKey, wakeKey) -> keeps the lane off the ring until then (timer r:<group>)
    w.afterServe(n, left, ring, set, timersKey, wakeKey) -> what a claim's turn does once it has
                    served n jobs of the lane (`left`: the lane then left `ring`): records them,
                    and when that fills the window parks the lane off its ring (kept in its ring
                    set) until the time it returns, else nil
]]
local function rateWindow(base, group, setting, now)
  local m, p = string.match(setting, '^(%d+) (%d+)$')
  local max, perMs = tonumber(m), tonumber(p)
  local logKey = base .. 'g:' .. group .. ':rate'
  local edge = now - perMs
  local w = { max = max, perMs = perMs }
  local function fits(k)
    local at = rcall('LINDEX', logKey, string.format('%d', max - k))
    return not at or tonumber(at) <= edge
  end
  function w.room(want)
    if want > max then want = max end
    if want < 1 or not fits(1) then return 0 end
    if fits(want) then return want end
    local lo, hi = 1, want
    while hi - lo > 1 do
      local mid = math.floor((lo + hi) / 2)
      if fits(mid) then lo = mid else hi = mid end
    end
    return lo
  end
  function w.reopenAt()
    local at = rcall('LINDEX', logKey, string.format('%d', max - 1))
    if not at or tonumber(at) <= edge then return nil end
    return tonumber(at) + perMs
  end
  function w.record(n)
    if n < 1 then return nil end
    local text = string.format('%d', now)
    -- NOTE: in pushes of at most 200 arguments, well inside Lua's stack for unpack.
    local args = {}
    for i = 1, math.min(n, 200) do args[i] = text end
    local left = n
    while left > 0 do
      local c = math.min(left, 200)
      rcall('LPUSH', logKey, unpack(args, 1, c))
      left = left - c
    end
    rcall('LTRIM', logKey, '0', string.format('%d', max - 1))
    rcall('PEXPIRE', logKey, string.format('%d', perMs))
    return w.reopenAt()
  end
  function w.park(timersKey, wakeKey, at)
    wakeBefore(timersKey, at, wakeKey)
    rcall('ZADD', timersKey, string.format('%d', at), 'r:' .. group)
  end
  function w.afterServe(n, left, ring, set, timersKey, wakeKey)
    local reopen = w.record(n)
    if not reopen then return nil end
    if left then
      rcall('SADD', set, group)
    elseif ringPlain then
      rcall('RPOP', ring)
    else
      ringOps().drop(base, ring, group)
    end
    w.park(timersKey, wakeKey, reopen)
    return reopen
  end
  return w
end
