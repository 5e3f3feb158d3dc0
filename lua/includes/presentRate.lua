--- @include "bucketKeys"
--[[
  presentRate(statsKey, now, readyAt?) -> count, spanMs: the completions of the queue's current busy
  spell and the time they took, for a wait estimate that reflects the present (count / spanMs is the
  rate). `readyAt`: when the job the estimate is for became ready (see headReady), nil if unknown.
  Reads the same per-second buckets as completedLastMinute (emq:{q}:stats:<second>, one MGET of the
  last 60). The spell is the run of seconds, ending now, with no gap of PRESENT_RATE_GAP or more
  empty seconds in it: a quiet stretch (no demand) ends the window, so it never dilutes the rate,
  while the short gaps of a slow but steady stream do not.
  The spell starts at its first completion, read from its first bucket's TTL at no cost to the
  completes: countCompleted sets a bucket's expiry (61 s) at its first completion, so that
  completion was at now - (61,000 - PTTL). The span is stretched by one mean gap, (span / count),
  so that a spell of one completion just now does not read as an endless rate. A young spell (under
  PRESENT_RATE_YOUNG completions) whose job has waited since before its first completion began no
  later than that job was ready, or than the previous spell ended: its first completion came one
  job's time after its work began, and asked just after it the stretch alone reads far too fast.
  When nothing completed in the last PRESENT_RATE_GAP seconds, the minute's completions count, from
  its oldest: over the time to now when the job was ready before the last of them (it waited
  through the gap: consumers stalled, or jobs slower than the gap), else (the job came after the
  queue fell quiet, and no completion of its burst has come yet) over the time to the end of the
  last second with one, so that the quiet stretch does not inflate the first estimates of a burst.
  A user whose ACL lacks PTTL gets the start of the first second instead of its first completion.
  Returns 0, 0 when nothing completed in the last minute.
]]
local PRESENT_RATE_GAP = 5
local PRESENT_RATE_YOUNG = 10
local function presentRate(statsKey, now, readyAt)
  local sec = math.floor(now / 1000)
  local buckets = bucketKeys(statsKey, sec)
  local counts = rcall('MGET', unpack(buckets))
  -- counts[60] is now's second, counts[1] the one 59 s before it.
  local n, oldest, last = {}, nil, nil
  for i = 1, 60 do
    n[i] = tonumber(counts[i]) or 0
    if n[i] > 0 then
      oldest = oldest or i
      last = i
    end
  end
  if not last then return 0, 0 end
  local function secondOf(i) return (sec - 60 + i) * 1000 end
  -- NOTE: pcall, so that an ACL user set up for 0.2 (no +pttl) still gets an estimate, from the
  -- start of the first completion's second.
  local function firstIn(i)
    local ttl = redis.pcall('PTTL', buckets[i])
    if type(ttl) == 'number' and ttl >= 0 then return math.min(math.max(now - (61000 - ttl), secondOf(i)), now) end
    return secondOf(i)
  end
  local current = 60 - last < PRESENT_RATE_GAP
  local from, upTo, count = oldest, now, 0
  if current then
    -- NOTE: walk back from the last completion's second to the first gap of PRESENT_RATE_GAP empty seconds.
    local gap = 0
    for i = last, 1, -1 do
      if n[i] > 0 then
        from, gap = i, 0
      else
        gap = gap + 1
        if gap >= PRESENT_RATE_GAP then break end
      end
    end
  elseif readyAt and readyAt >= secondOf(last) + 1000 then
    upTo = secondOf(last) + 1000
  end
  for i = from, 60 do count = count + n[i] end
  local firstAt = firstIn(from)
  local span = math.max(upTo - firstAt, 1) * (count + 1) / count
  if current and count < PRESENT_RATE_YOUNG and readyAt and readyAt < firstAt then
    local began = readyAt
    for i = from - 1, 1, -1 do
      if n[i] > 0 then
        began = math.max(began, secondOf(i) + 1000)
        break
      end
    end
    if began < firstAt then span = math.max(span, now - began) end
  end
  return count, math.floor(span + 0.5)
end
