--[[
  The buckets of shares() (see servedShare, which writes them, and laneShares, which reads them): 10 s
  of the server clock each, numbered ms / 10,000 floored; a read covers the last 60 s.
  shareBucket(now) -> the number of the bucket `now` falls in; shareOldest(now) -> the oldest that meets
  the window ending at `now`.
  shareWindow(now) -> buckets, parts: the numbers (as text) of the 7 buckets that meet the window
  ending at `now`, oldest first, and the part of each inside it (1 but for the oldest).
]]
local SHARE_BUCKET_MS = 10000
local SHARE_WINDOW_MS = 60000

local function shareBucket(now)
  return math.floor(now / SHARE_BUCKET_MS)
end

--[[ The oldest bucket that meets the window ending at `now` (it may lie partly outside it). ]]
local function shareOldest(now)
  return shareBucket(now) - SHARE_WINDOW_MS / SHARE_BUCKET_MS
end

local function shareWindow(now)
  local oldest = shareOldest(now)
  local buckets, parts = {}, {}
  for n = oldest, shareBucket(now) do
    buckets[#buckets + 1] = string.format('%d', n)
    parts[#parts + 1] = n == oldest and math.max(0, ((n + 1) * SHARE_BUCKET_MS - (now - SHARE_WINDOW_MS)) / SHARE_BUCKET_MS) or 1
  end
  return buckets, parts
end
