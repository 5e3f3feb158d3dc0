--[[
  wclaimMany: many weighted turns in one round trip. Promote due scheduled jobs, then take weighted
  turns one after another (each exactly what one wclaim serves: rotate the ring one step, serve
  K = min(weight, pending depth, limit - active, max) heads of the rotated lane, all under one
  lease), so the call serves exactly what that many wclaims in a row would. It stops after `turns`
  turns, after the turn that brings the jobs served to `untilJobs` or more, when a turn finds no
  serviceable lane, or at 1,000 jobs: the turn that would pass 1,000 is cut to fit, as a wclaim
  with `max` would be.

  KEYS[1] ring       emq:{q}:ring
  KEYS[2] ringset    emq:{q}:ringset
  KEYS[3] paused     emq:{q}:paused
  KEYS[4] glimit     emq:{q}:glimit
  KEYS[5] gactive    emq:{q}:gactive
  KEYS[6] active     emq:{q}:active    (leases, scored by deadline)
  KEYS[7] schedule   emq:{q}:schedule
  KEYS[8] wake       emq:{q}:wake
  KEYS[9] gweight    emq:{q}:gweight   (integer >= 1 per group, 1 when unset)

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] turns      weighted turns to take, 1..1000
  ARGV[4] max        cap on each turn's K, 0 for none
  ARGV[5] untilJobs  stop once this many jobs are served (the turn that reaches it is served
                     whole), 1..1000; 0 for none
  ARGV[6] promoteMax how many due scheduled jobs to promote first, at most

  Reply: { leaseUntil, dueIn, sizes, then per job: id, group, attempt, payload, submitted_at, last_error }
  sizes is the list of how many jobs each turn served, in order (the jobs follow in the same order);
  dueIn is how many ms until the earliest job still scheduled falls due (server clock), -1 when none.
  Clock: server TIME for the lease and for what is due.
  Derived keys: as wclaim (the lanes named by the ring, the job rows), built from ARGV[1], which is
  pinned to the declared ring key (same {q} slot).
  Cost: O(1) in the number of lanes per turn, O(log n) in a lane's depth per job served; at most
  1,000 turns and 1,000 jobs per call.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "promoteDue"
--- @include "weightedTurn"

local MAX_JOBS = 1000
local ringKey, ringSetKey, pausedKey, glimitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local gactiveKey, activeKey, scheduleKey, wakeKey, weightKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local base = ARGV[1]
local leaseMs, turns, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local untilJobs, promoteMax = tonumber(ARGV[5]), tonumber(ARGV[6])
if ringKey ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not turns or turns < 1 or turns > MAX_JOBS
   or not cap or cap < 0 or not untilJobs or untilJobs < 0 or untilJobs > MAX_JOBS
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: wclaimMany arguments do not match its keys')
end
if untilJobs == 0 then untilJobs = MAX_JOBS end

local now = nowMs()
local _, nextDue = promoteDue(base, now, promoteMax, scheduleKey, ringKey, ringSetKey, pausedKey,
  glimitKey, gactiveKey, wakeKey)
local leaseUntil = now + leaseMs
local dueIn = -1
if nextDue >= 0 then dueIn = math.max(nextDue - now, 0) end
local sizes = {}
local out = { leaseUntil, dueIn, sizes }
local served = 0
while #sizes < turns and served < untilJobs do
  local room = MAX_JOBS - served
  local turnCap = cap
  if turnCap == 0 or turnCap > room then turnCap = room end
  local n = weightedTurn(base, turnCap, leaseUntil, out, ringKey, ringSetKey, pausedKey, glimitKey,
    gactiveKey, activeKey, weightKey)
  if not n then break end
  sizes[#sizes + 1] = n
  served = served + n
end
return out
