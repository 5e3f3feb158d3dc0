--[[
  locateJob: where a pending job stands: its rank in its lane, its lane's place in the ring, and how
  many jobs claims serve before it. The lane timers that are due are applied first (as a claim
  would, at most 32 per call, see laneTimers), so that a lane whose timed pause has ended or whose
  rate window has reopened has its place in the ring, as lane() reports, even while no consumer claims.

  KEYS[1]  job      emq:{q}:job:<id>
  KEYS[2]  ring     emq:{q}:ring
  KEYS[3]  ringset  emq:{q}:ringset
  KEYS[4]  stats    emq:{q}:stats     (its per-second buckets emq:{q}:stats:<second>: the rate behind the wait estimate)
  KEYS[5]  timers   emq:{q}:timers    (lane timers: p:<group>, r:<group>, scored by due time)
  KEYS[6]  grate    emq:{q}:grate     (the rest: what applying a lane timer reads and writes)
  KEYS[7]  gpause   emq:{q}:gpause
  KEYS[8]  paused   emq:{q}:paused
  KEYS[9]  glimit   emq:{q}:glimit
  KEYS[10] gactive  emq:{q}:gactive
  KEYS[11] wake     emq:{q}:wake
  KEYS[12] lanes    emq:{q}:lanes
  KEYS[13] gweight  emq:{q}:gweight

  ARGV[1] base   'emq:{q}:'
  ARGV[2] id     job id
  ARGV[3] exactUpTo  rings up to this many lanes get an exact `ahead` (1,000)

  Reply: { laneRank, ringIndex (-1 when out of the ring), ringLength, ahead, exact (0/1),
  rateCount, rateSpanMs }, or an empty array when the job is not pending: the completions of the
  queue's current busy spell and the ms they took (see presentRate; 0, 0 without a rate).
  `ahead`: with one claimer that completes each job before its next claim, a job at rank r of a
  lane at ring index i is served after r jobs of its own lane and, for each other ring lane l at
  index j with depth d, min(d, r) jobs from the r whole turns before its own, plus one more when
  j < i and d > r (that lane's turn comes first in the job's own turn). A lane out of the ring is
  counted as if it rejoined at the tail now (and `exact` is 0). Rings longer than exactUpTo get the
  bound r + before * (r + 1) + after * r instead of the sum, so the cost stays bounded.
  Clock: server TIME (which lane timers are due, the buckets of the last minute).
  Derived keys: the job's lane, the ring lanes' pending sets and those of the lanes whose timers are
  applied, from ARGV[1] pinned to KEYS[2].
  Cost: O(ring length) for the LPOS of the lane (a scan in C), plus O(exactUpTo) reads at most, plus
  at most 32 timers applied (see readStats: while the queue is paused too).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "presentRate"
--- @include "laneTimers"

local base, id, exactUpTo = ARGV[1], ARGV[2], tonumber(ARGV[3])
if KEYS[1] ~= base .. 'job:' .. id or KEYS[2] ~= base .. 'ring' or not exactUpTo or exactUpTo < 0 then
  return redis.error_reply('ERR echomq: locateJob arguments do not match its keys')
end
local now = nowMs()
laneTimers(base, now, { timers = KEYS[5], grate = KEYS[6], gpause = KEYS[7], paused = KEYS[8], ring = KEYS[2],
  ringset = KEYS[3], glimit = KEYS[9], gactive = KEYS[10], wake = KEYS[11], lanes = KEYS[12], gweight = KEYS[13] })
local row = rcall('HMGET', KEYS[1], 'state', 'group')
if row[1] ~= 'pending' or not row[2] then return {} end
local group = row[2]
local r = rcall('ZRANK', base .. 'g:' .. group .. ':pending', id)
if not r then return {} end
local ringLength = rcall('LLEN', KEYS[2])
local inRing = rcall('SISMEMBER', KEYS[3], group) == 1
local i
if inRing then i = rcall('LPOS', KEYS[2], group) end
local exact = inRing and i
local at = i or ringLength
local others = ringLength
if i then others = ringLength - 1 end
local ahead = r
if ringLength <= exactUpTo then
  local names = rcall('LRANGE', KEYS[2], 0, -1)
  for j = 1, #names do
    local name = names[j]
    if name ~= group then
      local d = rcall('ZCARD', base .. 'g:' .. name .. ':pending')
      ahead = ahead + math.min(d, r)
      if j - 1 < at and d > r then ahead = ahead + 1 end
    end
  end
else
  exact = false
  local before = math.min(at, others)
  ahead = ahead + before * (r + 1) + (others - before) * r
end
local rateCount, rateSpanMs = presentRate(KEYS[4], now)
return { r, i or -1, ringLength, ahead, exact and 1 or 0, rateCount, rateSpanMs }
