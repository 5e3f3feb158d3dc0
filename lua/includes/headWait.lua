--[[
  headWait(base, group, now, pending) -> how long (ms, server clock) the lane's head job has been
  ready to serve, -1 when the lane holds no pending job (`pending`, its depth the caller has read:
  an empty lane costs no read): the starvation signal (LaneInfo.headWaitMs). Ready
  means its submit, or the moment it came back (a delay or backoff due, a reap, a hand-back,
  retryDead: see markReady), so a delay does not count as waiting. The time is read from the row's
  `at` ("<submitted>:<ready>", or "<submitted>" for a caller's own id), else from the id's mint
  time. Reads only: O(log n) in the lane's depth, for the lanes a read returns.
]]
local HEAD_EPOCH_MS = 1704067200000

-- The mint time inside a minted id (JOB + 11 base62 digits: ms since 2024-01-01 above 22 bits of
-- node and sequence), nil for another id. A double holds the 63-bit value to well under 1 ms.
local function mintMsOf(id)
  if #id ~= 14 or string.sub(id, 1, 3) ~= 'JOB' then return nil end
  local v = 0
  for i = 4, 14 do
    local b = string.byte(id, i)
    v = v * 62 + (b <= 57 and b - 48 or (b <= 90 and b - 55 or b - 61))
  end
  return math.floor(v / 4194304) + HEAD_EPOCH_MS
end

local function headWait(base, group, now, pending)
  if pending == 0 then return -1 end
  local head = rcall('ZRANGE', base .. 'g:' .. group .. ':pending', 0, 0)[1]
  if not head then return -1 end
  local at = rcall('HGET', base .. 'job:' .. head, 'at')
  local ready = at and (tonumber(string.match(at, ':(%d+)$')) or tonumber(string.match(at, '^(%d+)'))) or mintMsOf(head)
  if not ready then return 0 end
  return math.max(0, math.floor(now - ready))
end
