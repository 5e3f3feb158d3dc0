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
  rateCount, rateSpanMs, tenant ('' none), tenantRingIndex (the lane's place on its tenant's ring, -1
  when out of it or under none) }, or an empty array when the job is not pending. rateCount and
  rateSpanMs: the completions of the queue's current busy spell and the ms they took (see
  presentRate, which the job's ready time also informs; 0, 0 without a rate). Under a tenant, ringIndex is the tenant's entry's place on the
  queue's ring while the lane is on its tenant's ring (-1 while either is out).
  `ahead`: with one claimer that completes each job before its next claim, a job at rank r of a
  lane at ring index i is served after r jobs of its own lane and, for each other ring lane l at
  index j with depth d, min(d, r) jobs from the r whole turns before its own, plus one more when
  j < i and d > r (that lane's turn comes first in the job's own turn). A lane out of the ring is
  counted as if it rejoined at the tail now (and `exact` is 0). `exact` is 0 too with scheduled jobs
  already due, and when a lane with a rate ceiling (or another tenant's entry, on a queue with rates)
  is to serve 2 jobs or more within the count. Under a tenant the same count runs
  twice: on the tenant's ring it gives R, the tenant's jobs served before this one; the tenant's
  entry is then a lane of the queue's ring as deep as the lanes on its ring together (with one
  claimer it is served once per turn while any has work), and the job is at rank R in it. Rings
  longer than exactUpTo entries (the queue's ring and its tenants' rings counted together) get the
  bound r + before * (r + 1) + after * r instead of the sum, at each level, so the cost stays bounded.
  Clock: server TIME (which lane timers are due, the buckets of the last minute).
  Derived keys: the schedule emq:{q}:schedule, the job's lane, the ring lanes' pending sets and those of the lanes whose timers are
  applied, the job's lane's tenant and the rings of the tenants on the ring, from ARGV[1] pinned to KEYS[2].
  Cost: O(ring length) for the LPOS of the lane (a scan in C), plus O(exactUpTo) reads at most, plus
  at most 32 timers applied (see readStats: while the queue is paused too); in `cost` fairness also
  the ring's starts and weights and COST_READS reads of rows (see costAhead).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "presentRate"
--- @include "headReady"
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
local ringLength = ringOps().len(base, KEYS[2])
-- NOTE: two levels (see laneRing): a lane under a tenant has its place on its tenant's ring, and the
-- tenant its place on the queue's ring; a lane under none is its own entry on the queue's ring.
local laneRingKey, laneSetKey, tenant = laneRing(base, group, KEYS[2], KEYS[3])
local entry = tenant and ('{t}' .. tenant) or group
local laneLength = tenant and ringOps().len(base, laneRingKey) or ringLength
local p
if rcall('SISMEMBER', laneSetKey, group) == 1 then p = ringOps().pos(base, laneRingKey, group) or nil end
local i = p
if tenant then
  i = nil
  if rcall('SISMEMBER', KEYS[3], entry) == 1 then i = ringOps().pos(base, KEYS[2], entry) or nil end
end
-- NOTE: in `cost`/`time` fairness the order is virtual time's, which the next charges change: the
-- count below is then the rotation's, an estimate (exact stays false).
local exact = p and i and not fairMode(base) and true or false
-- NOTE: scheduled jobs already due go into their lanes at the next claim, before it serves: the count
-- does not know where, so it is the rotation's, an estimate.
if exact and rcall('ZCOUNT', base .. 'schedule', '-inf', string.format('%d', now)) > 0 then exact = false end
-- NOTE: nor does it know rates: a lane with a rate ceiling that the count has serve 2 jobs or more may
-- leave the ring at its window first (one job it always has room for: it is on the ring), and so may a
-- lane of another tenant's entry; the count is then an estimate.
local rated = exact and rcall('EXISTS', KEYS[6]) == 1
local function mayPark(name, n)
  if not rated or n < 2 then return false end
  return string.byte(name, 1) == 123 or rcall('HEXISTS', KEYS[6], name) == 1
end
if mayPark(group, r + 1) then exact = false end
local function laneDepth(name) return rcall('ZCARD', base .. 'g:' .. name .. ':pending') end
-- A tenant entry stands for its lanes on its ring: with one claimer it is served once per turn
-- while any of them has work, so it counts as one lane as deep as they are together.
local function entryDepth(name)
  if string.byte(name, 1) ~= 123 then return laneDepth(name) end
  local d = 0
  for _, lane in ipairs(ringOps().list(base, base .. 't:' .. string.sub(name, 4) .. ':ring')) do d = d + laneDepth(lane) end
  return d
end
-- Jobs served before the job's turn comes, for a job at `rank` of the entry `self` at index `at` of a
-- ring listing `names`: min(d, rank) of each other entry of depth d, plus one when it comes first.
local function before(names, self, rank, at, depthOf)
  local n = rank
  for j = 1, #names do
    local name = names[j]
    if name ~= self then
      local d = depthOf(name)
      local served = math.min(d, rank) + ((j - 1 < at and d > rank) and 1 or 0)
      if exact and mayPark(name, served) then exact = false end
      n = n + served
    end
  end
  return n
end
local function bound(rank, at, length, inIt)
  local others = inIt and length - 1 or length
  local b = math.min(at, others)
  return rank + b * (rank + 1) + (others - b) * rank
end
-- NOTE: in `cost` fairness with one claimer the claims serve the entries in the order of (start,
-- name) and charge each job its cost ÷ its lane's weight, so the order follows from the costs in
-- the rows: the job at rank r of lane L is served once L's start reaches T = its start now plus the
-- costs ÷ w_L of the r jobs ahead of it, after every job of another lane M whose start (M's start
-- now plus the costs ÷ w_M of M's jobs before it) sorts before (T, L). At most COST_READS reads of
-- rows and lanes; past them each job left of another lane is taken to cost 1, the least a cost can
-- be, which can only add to the count (exact is then false); each lane's depth is read whatever
-- the reads (at most exactUpTo lanes), so no lane counts more jobs than it holds. Lanes of a
-- tenant, a ring still moving between orders, or more jobs ahead in the job's own lane than the
-- reads allow keep the rotation's count below, an estimate.
local COST_READS = 200
-- Whether name a sorts before b as a sorted set orders equal scores: byte by byte (Lua's `<` on
-- strings follows the server's collation locale).
local function bytesBefore(a, b)
  for at = 1, math.min(#a, #b) do
    local x, y = string.byte(a, at), string.byte(b, at)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local function costAhead()
  local flat = rcall('ZRANGE', KEYS[2] .. ':vt', 0, -1, 'WITHSCORES')
  local others = {}
  for j = 1, #flat, 2 do
    if string.byte(flat[j], 1) == 123 then return nil end
    if flat[j] ~= group then others[#others + 1] = flat[j] end
  end
  if r >= COST_READS then return nil end
  local startOf = {}
  for j = 1, #flat, 2 do startOf[flat[j]] = tonumber(flat[j + 1]) end
  local weightOf = {}
  if rcall('EXISTS', KEYS[13]) == 1 then
    local w = rcall('HMGET', KEYS[13], group, unpack(others))
    weightOf[group] = tonumber(w[1])
    for j = 1, #others do weightOf[others[j]] = tonumber(w[j + 1]) end
  end
  local reads, whole = 0, true
  -- The costs of up to `n` jobs of `lane` from place `from` (0-based): one read for the ids, one a row.
  local function costsOf(lane, from, n)
    n = math.min(n, COST_READS - reads - 1)
    if n <= 0 then return {} end
    local ids = rcall('ZRANGE', base .. 'g:' .. lane .. ':pending', from, from + n - 1)
    local costs = {}
    for j = 1, #ids do costs[j] = tonumber(rcall('HGET', base .. 'job:' .. ids[j], 'cost')) or 1 end
    reads = reads + 1 + #ids
    return costs
  end
  -- NOTE: a lane out of the ring counts as if it rejoined now: at the ring's virtual time, or ahead
  -- of it by what it still owes (see fairOps .join).
  local S = startOf[group]
  if not S then
    S = fairOps().now(base, KEYS[2])
    local owed = tonumber(rcall('ZSCORE', KEYS[2] .. ':owed', group))
    if owed and owed > S then S = owed end
  end
  local T, wL = S, weightOf[group] or 1
  local own = costsOf(group, 0, r)
  for j = 1, #own do T = T + own[j] / wL end
  local count = r
  for j = 1, #others do
    local name = others[j]
    local start, w = startOf[name], weightOf[name] or 1
    -- NOTE: a start equal to T comes first when the name sorts first (the set's order of ties).
    local tieFirst = bytesBefore(name, group)
    if start < T or (start == T and tieFirst) then
      local depth = laneDepth(name)
      local k = 0
      while k < depth and (start < T or (start == T and tieFirst)) do
        local costs = costsOf(name, k, math.min(depth - k, 50))
        if #costs == 0 then
          -- NOTE: out of reads: each job left costs 1 at least, so at most this many more start before T.
          whole = false
          k = k + math.min(depth - k, math.floor((T - start) * w) + 1)
          break
        end
        for c = 1, #costs do
          if not (start < T or (start == T and tieFirst)) then break end
          k = k + 1
          start = start + costs[c] / w
        end
      end
      count = count + k
    end
  end
  return count, whole
end
local ahead
if fairBy == 'cost' and not fairMoving and not tenant and ringLength <= exactUpTo then
  local whole
  ahead, whole = costAhead()
  if ahead then
    exact = whole and p ~= nil and rcall('EXISTS', KEYS[6]) == 0
      and rcall('ZCOUNT', base .. 'schedule', '-inf', string.format('%d', now)) == 0
  end
end
-- NOTE: the rotation's count, when the costs gave none (the ring is read only then).
if not ahead then
  -- The entries an exact count reads: the queue's ring, and the rings of the tenants on it.
  local names = ringLength <= exactUpTo and ringOps().list(base, KEYS[2]) or nil
  local entries = ringLength
  if names then
    for j = 1, #names do
      if string.byte(names[j], 1) == 123 then entries = entries + ringOps().len(base, base .. 't:' .. string.sub(names[j], 4) .. ':ring') end
    end
  end
  if tenant and not (names and i) then entries = entries + laneLength end
  if names and entries <= exactUpTo then
    -- rank among the tenant's own jobs (its lanes in rotation), then that rank on the queue's ring
    local rank = r
    if tenant then rank = before(ringOps().list(base, laneRingKey), group, r, p or laneLength, laneDepth) end
    ahead = before(names, entry, rank, i or ringLength, entryDepth)
  else
    exact = false
    local rank = r
    if tenant then rank = bound(r, p or laneLength, laneLength, p ~= nil) end
    ahead = bound(rank, i or ringLength, ringLength, i ~= nil)
  end
end
local rateCount, rateSpanMs = presentRate(KEYS[4], now, headReady(base, id))
-- NOTE: ringIndex says whether the job's lane is in service (the contract's null while it is out of
-- the ring): under a tenant, the tenant's place only while the lane is on the tenant's ring too.
return { r, (p and i) or -1, ringLength, ahead, exact and 1 or 0, rateCount, rateSpanMs, tenant or '', tenant and (p or -1) or -1 }
