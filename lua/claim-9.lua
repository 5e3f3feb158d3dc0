--[[
  claim: promote due scheduled jobs, then rotate the ring one step per claim (LMOVE head -> tail)
  and serve the head of the rotated lane under a lease on the server clock. `steps` > 1 serves
  exactly what that many single claims in a row would, in one round trip.

  KEYS[1] ring       emq:{q}:ring
  KEYS[2] ringset    emq:{q}:ringset
  KEYS[3] paused     emq:{q}:paused
  KEYS[4] glimit     emq:{q}:glimit
  KEYS[5] gactive    emq:{q}:gactive
  KEYS[6] active     emq:{q}:active    (leases, scored by deadline)
  KEYS[7] schedule   emq:{q}:schedule
  KEYS[8] wake       emq:{q}:wake
  KEYS[9] lanes      emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] steps      rotations to make, >= 1 (one job each)
  ARGV[4] promoteMax how many due scheduled jobs to promote first, at most

  Reply: { leaseUntil, dueIn, then per job: id, group, attempt, payload, submitted_at, last_error }
  dueIn is how many ms until the earliest job still scheduled falls due (server clock), -1 when none.
  Clock: server TIME for the lease and for what is due.
  Derived keys: the lane emq:{q}:g:<group>:pending named by the ring, and emq:{q}:job:<id> of the
  jobs served, both built from ARGV[1], which is pinned to the declared ring key (same {q} slot).
  Cost: O(1) in the number of lanes, O(log n) in the lane's depth per job served.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "promoteDue"
--- @include "laneState"
--- @include "serveLane"
--- @include "rotateRing"

local ringKey, ringSetKey, pausedKey, glimitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local gactiveKey, activeKey, scheduleKey, wakeKey, indexKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local base = ARGV[1]
local leaseMs, steps, promoteMax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if ringKey ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not steps or steps < 1
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: claim arguments do not match its keys')
end

local now = nowMs()
local _, nextDue = promoteDue(base, now, promoteMax, scheduleKey, ringKey, ringSetKey, pausedKey,
  glimitKey, gactiveKey, wakeKey, indexKey)
local leaseUntil = now + leaseMs
local dueIn = -1
if nextDue >= 0 then dueIn = math.max(nextDue - now, 0) end
local out = { leaseUntil, dueIn }
local served, healed = 0, 0
while served < steps do
  local group = rotateRing(ringKey)
  if not group then break end
  local depth, active, limit, paused = laneState(base, group, pausedKey, glimitKey, gactiveKey)
  if depth == 0 or paused or (limit and active >= limit) then
    -- NOTE: unreachable while the ring holds exactly the serviceable lanes; if it ever does not,
    -- take the lane off (it is at the tail) rather than serve a parked lane, and try the next.
    rcall('RPOP', ringKey)
    rcall('SREM', ringSetKey, group)
    healed = healed + 1
    if healed > 16 then break end
  else
    serveLane(base, group, 1, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, depth, active, limit, indexKey)
    served = served + 1
  end
end
return out
