--[[
  queueTotals(statsKey) -> the queue's totals in emq:{q}:stats since it began, as numbers (0 for one
  never counted), in the order of TOTAL_FIELDS, which is the order stats() replies them. readStats
  reads them, and a shard a smaller shard count drops hands them on (foldTotals); the scripts that
  count each one HINCRBY its field where it happens.
]]
--- @shared TOTAL_FIELDS: a list of names, never written
local TOTAL_FIELDS = { 'submitted', 'completed', 'retried', 'dead', 'reaped', 'cancelled' }

local function queueTotals(statsKey)
  local counts = rcall('HMGET', statsKey, unpack(TOTAL_FIELDS))
  for i = 1, #TOTAL_FIELDS do counts[i] = tonumber(counts[i]) or 0 end
  return counts
end
