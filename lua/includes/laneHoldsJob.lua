--[[
  laneHoldsJob(base, group, gactiveKey?) -> true when the lane holds a pending or an active job
  (`gactiveKey`: emq:{q}:gactive when the caller has it, else derived from base). What fixes a
  lane's tenant (see laneRing): a submit naming another tenant for such a lane is refused, and a
  sharded lane does not move to another tenant's shard. The contract names scheduled and dead jobs
  too; they are not counted here yet (see the README's tenant table).
]]
local function laneHoldsJob(base, group, gactiveKey)
  return rcall('ZCARD', base .. 'g:' .. group .. ':pending') > 0 or rcall('HGET', gactiveKey or base .. 'gactive', group) ~= false
end
