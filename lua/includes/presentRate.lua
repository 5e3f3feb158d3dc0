--- @include "bucketKeys"
--[[
  presentRate(statsKey, now) -> count, spanMs: the completions of the queue's current busy spell
  and the time they took, for a wait estimate that reflects the present (count / spanMs is the rate).
  Reads the same per-second buckets as completedLastMinute (emq:{q}:stats:<second>, one MGET of the
  last 60). The spell is the run of seconds, ending now, with no gap of PRESENT_RATE_GAP or more
  empty seconds in it: a quiet stretch (no demand) ends the window, so it never dilutes the rate,
  while the short gaps of a slow but steady stream do not. When nothing completed in the last
  PRESENT_RATE_GAP seconds (consumers stalled, or very slow jobs), the whole minute counts.
  The spell starts at its first completion, read from its first bucket's TTL at no cost to the
  completes: countCompleted sets a bucket's expiry (61 s) at its first completion, so that
  completion was at now - (61,000 - PTTL). The span is stretched by one mean gap, (span / count),
  so that a spell of one completion just now does not read as an endless rate. A user whose ACL
  lacks PTTL gets the start of that first second instead.
  Returns 0, 0 when nothing completed in the last minute.
]]
local PRESENT_RATE_GAP = 5
local function presentRate(statsKey, now)
  local sec = math.floor(now / 1000)
  local buckets = bucketKeys(statsKey, sec)
  local counts = rcall('MGET', unpack(buckets))
  -- counts[60] is now's second, counts[1] the one 59 s before it: walk back to the first gap.
  local from, gap = nil, 0
  for i = 60, 1, -1 do
    if (tonumber(counts[i]) or 0) > 0 then
      from, gap = i, 0
    else
      gap = gap + 1
      if gap >= PRESENT_RATE_GAP then break end
    end
  end
  if not from then
    for i = 1, 60 do
      if (tonumber(counts[i]) or 0) > 0 then from = i break end
    end
    if not from then return 0, 0 end
  end
  local count = 0
  for i = from, 60 do count = count + (tonumber(counts[i]) or 0) end
  local second = (sec - 60 + from) * 1000
  -- NOTE: pcall, so that an ACL user set up for 0.2 (no +pttl) still gets an estimate, from the
  -- start of the spell's first second.
  local ttl = redis.pcall('PTTL', buckets[from])
  local firstAt = second
  if type(ttl) == 'number' and ttl >= 0 then firstAt = math.min(math.max(now - (61000 - ttl), second), now) end
  local span = math.max(now - firstAt, 1) * (count + 1) / count
  return count, math.floor(span + 0.5)
end
