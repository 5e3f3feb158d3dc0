--[[
  wclaimMany: many weighted turns in one round trip. Apply due lane timers and promote due
  scheduled jobs, then take weighted turns one after another, each exactly what one wclaim serves
  (rotate the ring one step, serve K = min(weight, pending depth, limit - active, max, room left in
  the lane's rate window) heads of the rotated lane; a lane at its rate leaves the ring), all under
  one lease, so the call serves exactly what that many wclaims in a row would. It stops after
  `turns` turns, after the turn that brings the jobs served to `untilJobs` or more, when a turn
  finds no serviceable lane, or at 1,000 jobs (or ARGV[8]): the turn that would pass them is cut to
  fit, as a wclaim with `max` would be.

  KEYS[1]  ring       emq:{q}:ring

  The queue's other keys are derived from ARGV[1] as wclaim's are (see wclaim-1.lua).

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] turns      weighted turns to take, 1..1000
  ARGV[4] max        cap on each turn's K, 0 for none
  ARGV[5] untilJobs  stop once this many jobs are served (the turn that reaches it is served
                     whole), 1..1000; 0 for none
  ARGV[6] promoteMax how many due scheduled jobs to promote first, at most
  ARGV[7] ringSize   optional: '1' appends the ring's size after the call to the reply (as claim's ARGV[5])
  ARGV[8] most       optional: jobs at most this call, 1..1000 (1,000 when left out); with it ARGV[7]
                     is '1' or '0'. A caller that splits many turns over calls (see LaneClaims.wclaimIn)
                     passes what is left of its 1,000, so the turn that would pass them is cut as in one call.

  Reply: { leaseUntil, dueIn, sizes, then per job: id, group, attempt, payload, submitted_at, last_error }
  sizes is the list of how many jobs each turn served, in order (the jobs follow in the same order);
  dueIn is how many ms until the earliest scheduled job or lane timer falls due (server clock), -1
  when none. While the queue is paused: { leaseUntil, -1, {} } and nothing is done.
  Clock: server TIME for the lease, for what is due and for rate windows.
  Derived keys: as wclaim (the lanes named by the ring, their rate logs, the job rows), built from
  ARGV[1], which is pinned to the declared ring key (same {q} slot).
  Cost: O(1) in the number of lanes per turn, O(log n) in a lane's depth per job served; at most
  1,000 turns and 1,000 jobs per call.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "dueWork"
--- @include "weightedTurn"
--- @include "laneKeysOf"

local MAX_JOBS = 1000
-- NOTE: the keys every call reads are derived here, at once (a key read through laneKeysOf's
-- metatable costs several times a concatenation); the rarer ones when first read.
local k = laneKeysOf(ARGV[1], { ring = KEYS[1], ringset = ARGV[1] .. 'ringset', paused = ARGV[1] .. 'paused',
  glimit = ARGV[1] .. 'glimit', gactive = ARGV[1] .. 'gactive', active = ARGV[1] .. 'active', schedule = ARGV[1] .. 'schedule',
  timers = ARGV[1] .. 'timers', meta = ARGV[1] .. 'meta', lanes = ARGV[1] .. 'lanes', gweight = ARGV[1] .. 'gweight' })
local base = ARGV[1]
local leaseMs, turns, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local untilJobs, promoteMax = tonumber(ARGV[5]), tonumber(ARGV[6])
local callMost = MAX_JOBS
if ARGV[8] then callMost = tonumber(ARGV[8]) end
if k.ring ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not turns or turns < 1 or turns > MAX_JOBS
   or not cap or cap < 0 or not untilJobs or untilJobs < 0 or untilJobs > MAX_JOBS
   or not promoteMax or promoteMax < 0 or not callMost or callMost < 1 or callMost > MAX_JOBS then
  return redis.error_reply('ERR echomq: wclaimMany arguments do not match its keys')
end
if untilJobs == 0 then untilJobs = MAX_JOBS end

local now = nowMs()
local nextDue, timerAt, rated, halted, queueLimit = dueWork(base, now, promoteMax, k)
k.now = now
-- NOTE: weight 1 is stored as no field, so a queue where no lane has a weight has no gweight hash:
-- one read here saves one per turn.
local weighted = rcall('EXISTS', k.gweight) == 1
k.weighted = weighted
-- The same for pauses and ceilings (after dueWork, which may end timed pauses).
if turns > 1 then learnSettings(k.paused, k.glimit) end
local leaseUntil = now + leaseMs
local sizes = {}
local out = { leaseUntil, -1, sizes }
if halted then return out end
local served = 0
-- NOTE: the queue's ceiling (queueLimit) bounds what the call serves, its leases counted.
local most = callMost
k.queueLimited = queueLimit ~= nil
if queueLimit then most = math.min(callMost, queueLimit - rcall('ZCARD', k.active)) end
while #sizes < turns and served < untilJobs and served < most do
  local turnCap = cap
  if turnCap == 0 or turnCap > most - served then turnCap = most - served end
  local n, reopenAt = weightedTurn(base, turnCap, now, leaseUntil, out, k, rated, weighted)
  if reopenAt >= 0 and (timerAt < 0 or reopenAt < timerAt) then timerAt = reopenAt end
  if not n then break end
  sizes[#sizes + 1] = n
  served = served + n
end
flushLeases(k.active, out)
if nextDue < 0 or (timerAt >= 0 and timerAt < nextDue) then nextDue = timerAt end
if nextDue >= 0 then out[2] = math.max(nextDue - now, 0) end
if ARGV[7] == '1' then out[#out + 1] = rcall('LLEN', k.ring) + rcall('ZCARD', k.ring .. ':vt') end
return out
