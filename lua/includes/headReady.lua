--[[
  headReady(base, id) -> when (ms) the pending job `id` became ready to serve: the ready part of its
  row's `at` (a delay or backoff due, a reap, a hand-back, retryDead: see markReady), else its submit
  (`at` of a caller's own id, or the mint time inside a minted id); nil when none is known.
  mintMsOf(id) -> the mint time inside a minted id (JOB + 11 base62 digits: ms since 2024-01-01 above
  22 bits of node and sequence), nil for another id. A double holds the 63-bit value to well under 1 ms.
  One HGET, for the few heads a read looks at.
]]
local HEAD_EPOCH_MS = 1704067200000

local function mintMsOf(id)
  if #id ~= 14 or string.sub(id, 1, 3) ~= 'JOB' then return nil end
  local v = 0
  for i = 4, 14 do
    local b = string.byte(id, i)
    v = v * 62 + (b <= 57 and b - 48 or (b <= 90 and b - 55 or b - 61))
  end
  return math.floor(v / 4194304) + HEAD_EPOCH_MS
end

local function headReady(base, id)
  local at = rcall('HGET', base .. 'job:' .. id, 'at')
  return at and (tonumber(string.match(at, ':(%d+)$')) or tonumber(string.match(at, '^(%d+)'))) or mintMsOf(id)
end
