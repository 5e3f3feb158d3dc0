--- @include "laneParked"
--[[
  laneHoldsJob(base, group, gactiveKey?) -> true when the lane holds a job: pending, active, or
  parked (scheduled or dead, see laneParked) (`gactiveKey`: emq:{q}:gactive when the caller has
  it, else derived from base). What fixes a lane's tenant (the contract: pending, scheduled,
  active or dead; see laneRing): a submit naming another tenant for such a lane is refused, and a
  sharded lane does not move to another tenant's shard.
]]
local function laneHoldsJob(base, group, gactiveKey)
  return rcall('ZCARD', base .. 'g:' .. group .. ':pending') > 0 or rcall('HGET', gactiveKey or base .. 'gactive', group) ~= false
    or laneParked(base, group)
end
