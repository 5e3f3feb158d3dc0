--- @include "numText"
--[[
  What each lane was served, for shares(): per 10 s of the server clock, a sorted set of lane ->
  jobs claimed, emq:{q}:served:<n> (n = ms / 10,000, floored), and in `cost`/`time` fairness one of
  lane -> work charged, emq:{q}:work:<n>. A read sums the 7 buckets that meet the last 60 s (the
  oldest in proportion to its part inside it). Each bucket key lives 80 s from its first entry, so
  memory is bounded by the lanes served in the last 80 s.
  servedShare(base, group, served, work, now): the lane was served `served` jobs and charged `work`
  (0 in `jobs` fairness) in this call; kept in the call until flushShares.
  flushShares(): writes what the call served: one ZINCRBY for a call that served one lane; for more,
  one ZMSCORE and one ZADD of them all (a call of 25 lanes pays 2 calls, not 25), the same again for
  work, and a PEXPIRE when the bucket gained a lane (the bucket may be new then). flushLeases calls it.
]]
local SHARE_BUCKET_MS = 10000
local SHARE_TTL_MS = '80000'
local SHARE_CHUNK = 500
--- @per-call shareLanes, shareServed, shareWork, shareBase, shareNow: what this call served, until it is written
local shareLanes, shareServed, shareWork, shareBase, shareNow = {}, {}, {}, nil, nil

local function servedShare(base, group, served, work, now)
  local had = shareServed[group]
  if had then
    shareServed[group] = had + served
    shareWork[group] = shareWork[group] + work
  else
    shareLanes[#shareLanes + 1] = group
    shareServed[group] = served
    shareWork[group] = work
  end
  shareBase, shareNow = base, now
end

-- A count as redis.call() takes it: whole numbers through numText (a time claim's work is not always whole).
local function shareText(v)
  if v == math.floor(v) then return numText(v) end
  return string.format('%.3f', v)
end

-- Adds each lane's amount (of `amounts`) to the bucket `key`; true when the bucket gained a lane.
local function shareAdd(key, amounts)
  local n = #shareLanes
  if n == 1 then
    local g = shareLanes[1]
    local text = shareText(amounts[g])
    return tonumber(rcall('ZINCRBY', key, text, g)) == tonumber(text)
  end
  local gained = false
  for first = 1, n, SHARE_CHUNK do
    local last = math.min(n, first + SHARE_CHUNK - 1)
    local had = rcall('ZMSCORE', key, unpack(shareLanes, first, last))
    local args = {}
    for i = first, last do
      local before = had[i - first + 1]
      if not before then gained = true end
      args[#args + 1] = shareText((tonumber(before) or 0) + amounts[shareLanes[i]])
      args[#args + 1] = shareLanes[i]
    end
    rcall('ZADD', key, unpack(args))
  end
  return gained
end

local function flushShares()
  if #shareLanes == 0 then return end
  local bucket = numText(math.floor(shareNow / SHARE_BUCKET_MS))
  local key = shareBase .. 'served:' .. bucket
  if shareAdd(key, shareServed) then rcall('PEXPIRE', key, SHARE_TTL_MS) end
  local worked = false
  for i = 1, #shareLanes do
    if shareWork[shareLanes[i]] > 0 then worked = true end
  end
  if worked then
    local wkey = shareBase .. 'work:' .. bucket
    if shareAdd(wkey, shareWork) then rcall('PEXPIRE', wkey, SHARE_TTL_MS) end
  end
  shareLanes, shareServed, shareWork = {}, {}, {}
end
