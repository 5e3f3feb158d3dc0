--[[
  fairMode(base) -> false (`jobs`) | 'cost' | 'time': the queue's fairness (field `fair` of
  emq:{q}:meta, see fairness), read once per script with whether a change of it is still moving the
  rings (`fairMove`) and whether the queue has ever had a tenant (anyTenant, see laneRing), in one
  HMGET. It sets `ringPlain`: every ring of the queue is a plain list, rotated as in `jobs`, so a
  caller may use the list commands itself (the hot paths do: see ringOps); nil (not read yet) is
  never taken for true. A claim learns all four from dueWork's read of meta instead, and with them
  `fairTimeMean`, the queue's recent mean time from claim to ack in `time` fairness (field `tmean`;
  false when none; nil when not read: see fairOps .estimate).
]]
--- @per-call fairBy, fairMoving, anyTenant, ringPlain, fairTimeMean
local fairBy, fairMoving, anyTenant, ringPlain, fairTimeMean

local function fairMode(base)
  if fairBy == nil or anyTenant == nil then
    local r = rcall('HMGET', base .. 'meta', 'fair', 'fairMove', 'tenants')
    fairBy, fairMoving, anyTenant = r[1] or false, r[2] ~= false, r[3] ~= false
  end
  ringPlain = not fairBy and not fairMoving
  return fairBy
end
