--[[
  claim: apply due lane timers and promote due scheduled jobs, then rotate the ring one step per
  claim (LMOVE head -> tail) and serve the head of the rotated lane under a lease on the server
  clock. `steps` > 1 serves exactly what that many single claims in a row would, in one round trip.
  A lane with a rate ceiling is served only while its window has room; when it is full the lane
  leaves the ring (it stays in the ring set, with a timer r:<group>) until its oldest claim in the
  window ages out, and then rejoins at the tail. A step that serves nothing (a lane found parked, or
  its head without a row) leaves a tenant its turn: its own ring steps next (see ringNext's `turn`).

  KEYS[1]  ring       emq:{q}:ring

  The other keys are derived from ARGV[1] (pinned to KEYS[1], so they share its {q} slot), each
  when it is first needed: a key passed costs the call about 1,200 server instructions (parsed,
  then made a Lua string in KEYS), one derived about half that, and only the keys the common path
  reads are derived on every call. Of the queue: ringset, paused, glimit, gactive, active (leases,
  scored by deadline), schedule, timers (timed pause ends, rate-window reopenings), meta (field
  paused: the whole queue is paused, nothing is served; field limit: the queue's ceiling on its
  active jobs), lanes (the lane index); and for the rarer paths wake, grate (rate ceilings: group
  -> "max perMs"), gpause (pause details, cleared when a timed pause ends), dead (a due id without
  a row or group goes here, see strayJob, and a lane entry without a row, see serveLane), pending
  (the flat pending set: flat jobs in compat mode), gweight (read only when a timed pause ends: is
  the lane still indexed?) and stats (totals: `dead` counts the strays dead-lettered here).

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] leaseMs    lease length, >= 1
  ARGV[3] steps      rotations to make, >= 1 (one job each)
  ARGV[4] promoteMax how many due scheduled jobs to promote first, at most
                     (ARGV[3] and ARGV[4] both left out: 1 and PROMOTE_DEFAULT, a one-job claim's, which
                     then costs two values passed fewer, about 1,000 server instructions each)
  ARGV[5] ringSize   optional: '1' appends to the reply how many entries the ring holds after the
                     call (its list and its virtual-time set): a sharded queue's claims weigh their
                     next visits to this shard by it (see shards/shard-visits.ts)

  Reply: { leaseUntil, dueIn, then per job: id, group, attempt, payload, submitted_at, last_error }
  (last_error is the pair { last_error, tc } for a job submitted with a trace context)
  dueIn is how many ms until the earliest scheduled job or lane timer falls due (server clock), -1
  when none. While the queue is paused: { leaseUntil, -1 } and nothing is done.
  Clock: server TIME for the lease, for what is due and for rate windows.
  Two levels: an entry '{t}<tenant>' of the ring is a tenant, whose own ring emq:{q}:t:<tenant>:ring
  (and ring set) rotates one step in turn and names the lane (see laneRing).
  Derived keys: the lane emq:{q}:g:<group>:pending named by the ring (or a tenant's ring), its rate log
  emq:{q}:g:<group>:rate, and emq:{q}:job:<id> of the jobs served, all built from ARGV[1], which
  is pinned to the declared ring key (same {q} slot).
  Cost: O(1) in the number of lanes, O(log n) in the lane's depth per job served; a queue with
  nothing scheduled, timed or rated, and no lane paused or ceilinged, pays one EXISTS per call for
  all that (see dueWork).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "dueWork"
--- @include "laneState"
--- @include "serveLane"
--- @include "ringNext"
--- @include "rateWindow"
--- @include "laneKeysOf"
--- @include "queueKeys"
--- @include "numberOf"

-- NOTE: what the client sends as a claim's promoteMax (PROMOTE_PER_CLAIM of lib/echomq.constants.ts).
local PROMOTE_DEFAULT = 100

local ringKey, base = KEYS[1], ARGV[1]
local leaseMs, steps, promoteMax = numberOf(ARGV[2]), 1, PROMOTE_DEFAULT
if #ARGV > 2 then steps, promoteMax = numberOf(ARGV[3]), numberOf(ARGV[4]) end
local K = queueKeys(base)
if ringKey ~= K.ring or not leaseMs or leaseMs < 1 or not steps or steps < 1
   or not promoteMax or promoteMax < 0 then
  return redis.error_reply('ERR echomq: claim arguments do not match its keys')
end
local ringSetKey, pausedKey, glimitKey = K.ringset, K.paused, K.glimit
local gactiveKey, activeKey, scheduleKey = K.gactive, K.active, K.schedule
local timersKey, metaKey, lanesKey = K.timers, K.meta, K.lanes

local now = nowMs()
local nextDue, timerAt, rated, halted, queueLimit = -1, -1, false, false, nil
-- NOTE: one read tells whether anything is scheduled or timed, the queue has a meta hash, or any
-- lane is paused or has a ceiling (the common case: none, and this read is all it costs); only when
-- one is there are the paused and ceiling sets asked apart (learnSettings), which tells how many of
-- the first three are there (dueWork). A timed pause dueWork ends leaves anyPaused true: safe, a
-- lane is then asked.
local present = rcall('EXISTS', scheduleKey, timersKey, metaKey, pausedKey, glimitKey)
if present > 0 then
  learnSettings(pausedKey, glimitKey)
  present = present - (anyPaused and 1 or 0) - (anyLimit and 1 or 0)
else
  anyPaused, anyLimit = false, false
end
if present > 0 then
  -- NOTE: the queue's keys as queueKeys keeps them (ring is KEYS[1], checked above): no table of
  -- sixteen keys built per call.
  nextDue, timerAt, rated, halted, queueLimit = dueWork(base, now, promoteMax, K, present)
else
  fairBy, fairMoving, anyTenant, ringPlain = false, false, false, true
end
local leaseUntil = now + leaseMs
local laneKeys = laneKeysOf(base, { lanes = lanesKey, paused = pausedKey, glimit = glimitKey, queueLimited = queueLimit ~= nil, now = now })
local out = { leaseUntil, -1 }
if halted then return out end
-- NOTE: the queue's ceiling (queueLimit) counts its leases, served ones included.
if queueLimit then steps = math.min(steps, queueLimit - rcall('ZCARD', activeKey)) end
local served, healed = 0, 0
-- NOTE: a tenant whose step served nothing keeps its turn (see ringNext's `turn`).
local open
while served < steps do
  local group, ring, set, tenant, t = ringNext(base, ringKey, ringSetKey, open)
  open = nil
  if not group then break end
  local active, limit, paused = laneState(group, pausedKey, glimitKey, gactiveKey)
  local setting = rated and rcall('HGET', laneKeys.grate, group)
  local window = setting and rateWindow(base, group, setting, now)
  -- NOTE: n, what this step served; stays: the lane's tenant is still on the queue's ring after it.
  local n, stays = 0, false
  if paused or (limit and active >= limit) then
    -- NOTE: unreachable while the ring holds exactly the serviceable lanes; if it ever does not,
    -- take the lane off (it is at the tail) rather than serve a parked lane, and try the next.
    if ringPlain then rcall('RPOP', ring) else ringOps().drop(base, ring, group) end
    rcall('SREM', set, group)
    stays = tenant and not tenantOps().served(base, ringKey, ringSetKey, ring, tenant, t, 0, true)
    healed = healed + 1
  elseif window and window.room(1) == 0 then
    -- NOTE: a lane can come back to the ring with its window still full (resume, a new ceiling);
    -- park it now, off the ring list (it is at the tail) but kept in the ring set.
    if ringPlain then rcall('RPOP', ring) else ringOps().drop(base, ring, group) end
    stays = tenant and not tenantOps().served(base, ringKey, ringSetKey, ring, tenant, t, 0, true)
    local at = window.reopenAt()
    window.park(timersKey, laneKeys.wake, at)
    if timerAt < 0 or at < timerAt then timerAt = at end
    healed = healed + 1
  else
    local left, work
    n, left, work = serveLane(base, group, 1, leaseUntil, out, ring, set, activeKey, gactiveKey, active, limit, laneKeys, tenant)
    if n > 0 then
      served = served + 1
    else
      -- NOTE: the lane's head had no row (see serveLane): that step served nothing; rotate on.
      healed = healed + 1
    end
    local reopen = window and window.afterServe(n, left, ring, set, timersKey, laneKeys.wake)
    if reopen and (timerAt < 0 or reopen < timerAt) then timerAt = reopen end
    -- NOTE: a tenant without settings, whose lane stays on its ring and was charged no work, stays
    -- on the queue's ring with nothing to write: known here without the call (see tenantOps .served).
    if not tenant then
      stays = false
    elseif t == plainState and not (left or reopen) and work == 0 then
      stays = true
    else
      stays = not tenantOps().served(base, ringKey, ringSetKey, ring, tenant, t, n, left or reopen, work)
    end
  end
  if healed > 16 then break end
  if n == 0 and stays then open = { ring = ring, set = set, tenant = tenant, t = t } end
end
flushLeases(activeKey, out)
if nextDue < 0 or (timerAt >= 0 and timerAt < nextDue) then nextDue = timerAt end
if nextDue >= 0 then out[2] = math.max(nextDue - now, 0) end
if ARGV[5] == '1' then out[#out + 1] = rcall('LLEN', ringKey) + rcall('ZCARD', ringKey .. ':vt') end
return out
