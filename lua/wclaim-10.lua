--[[
  wclaim: the weighted claim. Promote due scheduled jobs, rotate the ring one step exactly as claim
  does, then serve K heads of the rotated lane under one lease, where
  K = min(weight, pending depth, limit - active, max).

  KEYS[1] ring       emq:{q}:ring
  KEYS[2] ringset    emq:{q}:ringset
  KEYS[3] paused     emq:{q}:paused
  KEYS[4] glimit     emq:{q}:glimit
  KEYS[5] gactive    emq:{q}:gactive
  KEYS[6] active     emq:{q}:active
  KEYS[7] schedule   emq:{q}:schedule
  KEYS[8] wake       emq:{q}:wake
  KEYS[9] gweight    emq:{q}:gweight   (integer >= 1 per group, 1 when unset)
  KEYS[10] lanes     emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] max        cap on K, 0 for none
  ARGV[4] promoteMax how many due scheduled jobs to promote first, at most

  Reply: { leaseUntil, dueIn, then per job: id, group, attempt, payload, submitted_at, last_error }
  Clock: server TIME.
  Derived keys: as claim (lane named by the ring, job rows), built from ARGV[1] pinned to KEYS[1].
  Cost: O(1) in the number of lanes, O(K log n) in the lane's depth.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "promoteDue"
--- @include "laneState"
--- @include "serveLane"
--- @include "rotateRing"

local ringKey, ringSetKey, pausedKey, glimitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local gactiveKey, activeKey, scheduleKey, wakeKey, weightKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local indexKey = KEYS[10]
local base = ARGV[1]
local leaseMs, cap, promoteMax = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if ringKey ~= base .. 'ring' or not leaseMs or leaseMs < 1 or not cap or cap < 0
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: wclaim arguments do not match its keys')
end

local now = nowMs()
local _, nextDue = promoteDue(base, now, promoteMax, scheduleKey, ringKey, ringSetKey, pausedKey,
  glimitKey, gactiveKey, wakeKey, indexKey)
local leaseUntil = now + leaseMs
local dueIn = -1
if nextDue >= 0 then dueIn = math.max(nextDue - now, 0) end
local out = { leaseUntil, dueIn }
for healed = 0, 16 do
  local group = rotateRing(ringKey)
  if not group then break end
  local depth, active, limit, paused = laneState(base, group, pausedKey, glimitKey, gactiveKey)
  local k = tonumber(rcall('HGET', weightKey, group)) or 1
  if k > depth then k = depth end
  if limit and k > limit - active then k = limit - active end
  if cap > 0 and k > cap then k = cap end
  if k >= 1 and not paused then
    serveLane(base, group, k, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, depth, active, limit, indexKey)
    break
  end
  -- NOTE: unreachable while the ring invariant holds (see claim); heal and rotate on.
  rcall('RPOP', ringKey)
  rcall('SREM', ringSetKey, group)
end
return out
