--- @include "compatMode"
--- @include "laneUnbind"
--- @include "grownHash"
--[[
  A lane's parked jobs: those in the schedule (a delayed submit, a retry waiting out its backoff) and
  those in the dead set, counted per lane in emq:{q}:gparked (hash group -> count; a field goes at
  0), derived from base. They hold the lane's tenant as its pending and active jobs do (the
  contract: pending, scheduled, active or dead), so a lane the lane index forgets keeps its tenant
  while it has any (indexForget asks laneParked), and a lane with one refuses another tenant
  (laneHoldsJob). Compat mode has no tenants and keeps the reference's keys: nothing is counted.
  A job parked before this count existed (an upgrade) is not in it; taking it out must not drive
  the count below 0, so such a lane holds its tenant only while the count says so.

  parkedIn(base, group): a job of the lane went into the schedule or the dead set
  parkedOut(base, group, indexKey?): one came out of them. `indexKey` (emq:{q}:lanes) when the job
    left the queue (cancelled, drained, cleaned): a lane then left with no parked job and not in
    the lane index (which names every lane with pending or active jobs or a setting) holds nothing,
    and lets its tenant go (laneUnbind), as indexForget would have when its last job ended
  laneParked(base, group) -> true while the lane has a parked job
]]
local function parkedIn(base, group)
  if compatMode() then return end
  local key = base .. 'gparked'
  if rcall('HINCRBY', key, group, '1') == 1 then grownHash(key) end
end

local function laneParked(base, group)
  return rcall('HEXISTS', base .. 'gparked', group) == 1
end

local function parkedOut(base, group, indexKey)
  if compatMode() or not group then return end
  if rcall('HINCRBY', base .. 'gparked', group, '-1') > 0 then return end
  rcall('HDEL', base .. 'gparked', group)
  -- NOTE: ZRANK, not ZSCORE: a score reply is a double, which the server formats slowly.
  if indexKey and not rcall('ZRANK', indexKey, group) then laneUnbind(base, group) end
end
