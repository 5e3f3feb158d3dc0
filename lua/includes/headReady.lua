--[[
  headReady(base, id) -> when (ms) the pending job `id` became ready to serve: the ready part of its
  row's `at` (a delay or backoff due, a reap, a hand-back, retryDead: see markReady), else its submit
  (`at` of a caller's own id, or the mint time inside a minted id); nil when none is known.
  mintMsOf(id) -> the mint time inside a minted id (JOB + 11 base62 digits: ms since 2024-01-01 above
  22 bits of node and sequence), nil for another id. A double holds the 63-bit value to well under 1 ms.
  One HGET, for the few heads a read looks at.
]]
local HEAD_EPOCH_MS = 1704067200000

-- NOTE: one string.byte call for the 14 bytes and no table: each C call costs more than the arithmetic.
local function base62(b)
  if b <= 57 then return b - 48 elseif b <= 90 then return b - 55 end
  return b - 61
end

local function mintMsOf(id)
  if #id ~= 14 then return nil end
  local j, o, b, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11 = string.byte(id, 1, 14)
  if j ~= 74 or o ~= 79 or b ~= 66 then return nil end
  local v = base62(d1)
  v = v * 62 + base62(d2)
  v = v * 62 + base62(d3)
  v = v * 62 + base62(d4)
  v = v * 62 + base62(d5)
  v = v * 62 + base62(d6)
  v = v * 62 + base62(d7)
  v = v * 62 + base62(d8)
  v = v * 62 + base62(d9)
  v = v * 62 + base62(d10)
  v = v * 62 + base62(d11)
  return math.floor(v / 4194304) + HEAD_EPOCH_MS
end

local function headReady(base, id)
  local at = rcall('HGET', base .. 'job:' .. id, 'at')
  return at and (tonumber(string.match(at, ':(%d+)$')) or tonumber(string.match(at, '^(%d+)'))) or mintMsOf(id)
end
