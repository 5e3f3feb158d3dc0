--- @include "numText"
--[[
  What each lane was served, for shares(): per 10 s of the server clock, a sorted set of lane ->
  jobs claimed, emq:{q}:served:<n> (n = ms / 10,000, floored), and in `cost`/`time` fairness one of
  lane -> work charged, emq:{q}:work:<n>. A read sums the 7 buckets that meet the last 60 s (the
  oldest in proportion to its part inside the window). Each bucket key lives 80 s from its first
  entry, so memory is bounded by the lanes served in the last 80 s.
  servedShare(base, group, served, work, now): the lane was served `served` jobs and charged `work`
  (0 in `jobs` fairness) in this call: one ZINCRBY per lane per call, a PEXPIRE when the bucket
  gains its first entry of the lane (a new bucket gains its TTL then), a second ZINCRBY for work.
]]
local SHARE_BUCKET_MS = 10000
local SHARE_TTL_MS = '80000'

--- @per-call shareTtlSet: the bucket keys this call has given their TTL
local shareTtlSet = {}

local function servedShare(base, group, served, work, now)
  local n = numText(math.floor(now / SHARE_BUCKET_MS))
  local key = base .. 'served:' .. n
  -- NOTE: the reply equals what was added only when this is the lane's first entry in the bucket,
  -- which is when the bucket may be new: its TTL is set then, once per call (a claim of many lanes
  -- meets each new one).
  if tonumber(rcall('ZINCRBY', key, numText(served), group)) == served and not shareTtlSet[key] then
    rcall('PEXPIRE', key, SHARE_TTL_MS)
    shareTtlSet[key] = true
  end
  if work > 0 then
    local wkey = base .. 'work:' .. n
    -- NOTE: a time claim's work is the queue's mean time, not always whole ms.
    local text = work == math.floor(work) and numText(work) or string.format('%.3f', work)
    if tonumber(rcall('ZINCRBY', wkey, text, group)) == tonumber(text) and not shareTtlSet[wkey] then
      rcall('PEXPIRE', wkey, SHARE_TTL_MS)
      shareTtlSet[wkey] = true
    end
  end
end
