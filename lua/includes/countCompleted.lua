--- @include "numText"
--[[
  countCompleted(statsKey, now, n)
  Adds n completions to the queue's totals (field `completed` of emq:{q}:stats) and to the bucket of
  the current second, a counter of its own, emq:{q}:stats:<second>, that expires after 61 s, from
  which stats and position read the completion rate of the last minute. A bucket is a key of its
  own rather than a field of the stats hash: a hash of ~60 fields is a listpack that every HINCRBY
  scans, while INCRBY finds its key in O(1), and expiry drops old buckets with no sweep. One INCRBY
  per call, plus a PEXPIRE once per second.
]]
local BUCKET_KEEP_MS = '61000'
local function countCompleted(statsKey, now, n)
  local text = n == 1 and '1' or string.format('%d', n)
  rcall('HINCRBY', statsKey, 'completed', text)
  local bucket = statsKey .. ':' .. numText(math.floor(now / 1000))
  if rcall('INCRBY', bucket, text) == n then rcall('PEXPIRE', bucket, BUCKET_KEEP_MS) end
end
