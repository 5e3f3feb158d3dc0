--- @include "numText"
--- @include "shareWindow"
--[[
  What each lane was served, for shares(): per 10 s of the server clock, a sorted set of lane ->
  jobs claimed, emq:{q}:served:<n> (n: see shareWindow), and in `cost`/`time` fairness one of
  lane -> work charged, emq:{q}:work:<n>. A read sums the 7 buckets that meet the last 60 s (the
  oldest in proportion to its part inside it). Each bucket key lives 80 s from its first entry, so
  memory is bounded by the lanes served in the last 80 s.
  servedShare(base, group, served, work, now): the lane was served `served` jobs and charged `work`
  (0 in `jobs` fairness) in this call: one ZINCRBY per lane per call (and one for work), and a
  PEXPIRE when the bucket gains its first entry of a lane (the bucket may be new then), once per
  call. Which bucket is current and its keys are kept per base from call to call (shareBuckets, in
  the function library; per call under EVALSHA), so a one-job claim does not build them again
  (about 2k instructions). Whether a bucket has its TTL is not kept: the library is shared by the
  server's databases, and a key of the same name in another one may lack it.
  (Writing a call's lanes in one ZMSCORE and one ZADD measured no cheaper for a call of 25 lanes,
  and 15k instructions dearer for a call of one: callgrind, bench/tools/instructions.js.)
  workSettled(base, group, delta, claimedAt, now): a `time` claim put an estimate into the work
  bucket of its moment (claimedAt); when the job ends (fairOps' settle) what it really took less that
  estimate goes into the same bucket, so a lane's work in the window is the time its jobs took, the
  time virtual time charged it. Nothing once that bucket has left the window: no read sums it.
]]
local SHARE_TTL_MS = '80000'
local SHARE_BASES_MAX = 256
--- @shared shareBuckets, shareBucketCount: per base, its current bucket (see shareEntry); what it holds follows from base and the clock
local shareBuckets, shareBucketCount = {}, 0
--- @per-call shareTtlServed, shareTtlWork: the bucket keys this call has given their TTL
local shareTtlServed, shareTtlWork

--[[ The bucket of base at `now`: from, to (ms), and its served and work keys. ]]
local function shareEntry(base, now)
  local e = shareBuckets[base]
  if e and now >= e.from and now < e.to then return e end
  local n = shareBucket(now)
  local number = numText(n)
  e = { from = n * SHARE_BUCKET_MS, to = (n + 1) * SHARE_BUCKET_MS, served = base .. 'served:' .. number, work = base .. 'work:' .. number }
  if shareBucketCount == SHARE_BASES_MAX then shareBuckets, shareBucketCount = {}, 0 end
  if not shareBuckets[base] then shareBucketCount = shareBucketCount + 1 end
  shareBuckets[base] = e
  return e
end

local function servedShare(base, group, served, work, now)
  local e = shareEntry(base, now)
  local key = e.served
  local text = numText(served)
  -- NOTE: the reply equals what was added only when this is the lane's first entry in the bucket;
  -- a whole number's reply is its decimal text, compared as text (no tonumber: Lua strings are
  -- interned, so this is a pointer comparison).
  if rcall('ZINCRBY', key, text, group) == text and shareTtlServed ~= key then
    rcall('PEXPIRE', key, SHARE_TTL_MS)
    shareTtlServed = key
  end
  if work > 0 then
    local wkey = e.work
    -- NOTE: a time claim's work is the queue's mean time, not always whole ms.
    local text = work == math.floor(work) and numText(work) or string.format('%.3f', work)
    if tonumber(rcall('ZINCRBY', wkey, text, group)) == tonumber(text) and shareTtlWork ~= wkey then
      rcall('PEXPIRE', wkey, SHARE_TTL_MS)
      shareTtlWork = wkey
    end
  end
end

local function workSettled(base, group, delta, claimedAt, now)
  local n = shareBucket(claimedAt)
  if delta == 0 or n < shareOldest(now) then return end
  local key = base .. 'work:' .. numText(n)
  local text = numText(delta)
  -- NOTE: the claim's own entry is there, and its bucket has its TTL: a bucket lives 80 s from its
  -- first entry, longer than it stays in the window. A new entry means the key was deleted
  -- meanwhile (obliterate): the one this makes must not outlive the window.
  if rcall('ZINCRBY', key, text, group) == text and rcall('PTTL', key) < 0 then
    rcall('PEXPIRE', key, SHARE_TTL_MS)
  end
end
