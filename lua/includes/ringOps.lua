--- @include "fairMode"
--- @include "rotateRing"
--- @include "fairOps"
--[[
  The order a ring serves its entries in: the one place that knows both kinds of ring.
  Every ring (the queue's emq:{q}:ring, a tenant's emq:{q}:t:<T>:ring) keeps its membership in its
  ring set as always; what orders its entries depends on the queue's fairness (see fairMode):
  - `jobs` (the default): the ring is the list itself, rotated one step per turn (LMOVE), so every
    entry gets one turn in turn.
  - `cost` and `time`: the list stays empty and the entries are the sorted set <ring>:vt, scored by
    each entry's virtual start; a turn serves the smallest and charges it work ÷ weight (see
    fairOps: start-time fair queueing).
  While a change of fairness moves the rings from one kind to the other (`fairMove`), a ring may
  hold entries in both; each step first moves up to MOVE_STEP of the other kind's entries over, and
  the reads count both.
  ringOps() -> the table of ring operations, built on first use (see the closures NOTE in laneRing):
    .step(base, ring) -> entry: the next entry to serve, nil when none; in a list it is rotated to
      the tail (rotateRing), in virtual time it stays where it is (.drop takes it off either way)
    .drop(base, ring, entry, start?): the entry .step just gave leaves the ring (RPOP of the tail, or
      ZREM; `start`, its virtual start when the caller knows it, see fairOps .leave)
    .push(base, ring, entry): an entry joins (RPUSH, or at its virtual start: fairOps .join)
    .remove(base, ring, entry) -> 1 | 0: an entry leaves from anywhere (LREM scans the list:
      operator paths only; ZREM in virtual time)
    .shift(base, ring) -> entry: the entry .head names leaves (LPOP, or ZREM): drain's walk
    .len(base, ring), .head(base, ring), .list(base, ring, n?) (in serve order), .pos(base, ring, entry)
    .move(base, ring, n) -> moved: up to n entries of the other kind move into the queue's kind
  NOTE: a script on the hot path (claims, submits, acks) runs the list commands itself while
  `ringPlain` (see fairMode), as it did before there was a second kind, so a queue in `jobs`
  fairness builds none of this: `if ringPlain then rcall('RPOP', ring) else ringOps().drop(...) end`.
]]
local MOVE_STEP = 32
--- @shared ringFns: its functions take what a call read as arguments or per-call upvalues
local ringFns

local function ringOps()
  if ringFns then return ringFns end
  local R = {}
  ringFns = R

  function R.move(base, ring, n)
    fairMode(base)
    if fairBy then
      local names = rcall('LRANGE', ring, 0, n - 1)
      if #names == 0 then return 0 end
      rcall('LTRIM', ring, #names, -1)
      -- NOTE: each keeps its place in the list's order, after the entries moved before it (see fairOps .join).
      local at = rcall('ZCARD', ring .. ':vt')
      for i = 1, #names do fairOps().join(base, ring, names[i], at + i - 1) end
      return #names
    end
    local moved = rcall('ZPOPMIN', ring .. ':vt', string.format('%d', n))
    for i = 1, #moved, 2 do rcall('RPUSH', ring, moved[i]) end
    return #moved / 2
  end

  function R.step(base, ring)
    fairMode(base)
    if fairMoving then R.move(base, ring, MOVE_STEP) end
    if not fairBy then return rotateRing(ring) end
    return rcall('ZRANGE', ring .. ':vt', 0, 0)[1]
  end

  function R.drop(base, ring, entry, start)
    if fairMode(base) then fairOps().leave(base, ring, entry, start) else rcall('RPOP', ring) end
  end

  function R.push(base, ring, entry)
    if fairMode(base) then fairOps().join(base, ring, entry) else rcall('RPUSH', ring, entry) end
  end

  function R.remove(base, ring, entry)
    fairMode(base)
    local n = 0
    if fairBy then n = fairOps().leave(base, ring, entry) end
    if not fairBy or (fairMoving and n == 0) then n = rcall('LREM', ring, '0', entry) end
    if fairMoving and not fairBy and n == 0 then n = rcall('ZREM', ring .. ':vt', entry) end
    return n
  end

  function R.len(base, ring)
    fairMode(base)
    local n = fairBy and rcall('ZCARD', ring .. ':vt') or rcall('LLEN', ring)
    if fairMoving then n = n + (fairBy and rcall('LLEN', ring) or rcall('ZCARD', ring .. ':vt')) end
    return n
  end

  function R.list(base, ring, n)
    fairMode(base)
    local last = n and n - 1 or -1
    local names = fairBy and rcall('ZRANGE', ring .. ':vt', 0, last) or rcall('LRANGE', ring, 0, last)
    if fairMoving and (not n or #names < n) then
      local rest = fairBy and rcall('LRANGE', ring, 0, last) or rcall('ZRANGE', ring .. ':vt', 0, last)
      for i = 1, #rest do
        if n and #names >= n then break end
        names[#names + 1] = rest[i]
      end
    end
    return names
  end

  function R.head(base, ring)
    return R.list(base, ring, 1)[1]
  end

  function R.shift(base, ring)
    fairMode(base)
    if fairBy then
      local entry = rcall('ZRANGE', ring .. ':vt', 0, 0)[1]
      if entry then
        fairOps().leave(base, ring, entry)
        return entry
      end
      return fairMoving and rcall('LPOP', ring) or nil
    end
    local entry = rcall('LPOP', ring)
    if not entry and fairMoving then entry = rcall('ZPOPMIN', ring .. ':vt')[1] end
    return entry or nil
  end

  -- The entry's 0-based place in the serve order (false when it is not there): LPOS, or ZRANK.
  function R.pos(base, ring, entry)
    fairMode(base)
    local p
    if fairBy then p = rcall('ZRANK', ring .. ':vt', entry) else p = rcall('LPOS', ring, entry) end
    if not p and fairMoving then
      local q
      if fairBy then q = rcall('LPOS', ring, entry) else q = rcall('ZRANK', ring .. ':vt', entry) end
      if q then p = (fairBy and rcall('ZCARD', ring .. ':vt') or rcall('LLEN', ring)) + q end
    end
    return p or false
  end

  return R
end
