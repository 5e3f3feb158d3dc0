--- @include "laneRing"
--- @include "indexForget"
--- @include "numText"
--- @include "servedShare"
--- @include "headBack"
--- @include "headReady"
--- @include "indexMoved"
--- @include "numberOf"
--- @include "laneParked"
--- @include "grownHash"
--[[
  serveLane(base, group, want, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, active, limit, x, tenant)
  Serves up to `want` heads of the lane the caller's ring step has just given (see ringOps):
  ZPOPMIN in mint order (it takes no more than the lane holds), attempt counter bumped (the fencing
  token) and state active in one HSET, the lease queued for the active set (flushLeases writes them,
  one ZADD per script), the lane's active count raised. When the lane is then empty or at its
  ceiling it leaves the ring by ringDrop (in a list it sits at the tail: RPOP, no scan).
  The lane index (x.lanes) is set to the depth left (ZCARD, then ZADD) when that left its band
  (indexMoved), and the lane's head entry then to the mint time of the last job popped (see
  headBack), in the same ZADD. `x` names the keys: lanes,
  dead, stats, and for indexForget paused, glimit, gweight, grate. `active` is the lane's active count when it has a ceiling, else 0.
  Appends id, group, attempt, payload, submitted_at (the row's `at`, or '0': the id's mint time), last_error per job to `out` (last_error as
  the pair { last_error, tc } when the row holds a trace context `tc`); returns the count,
  whether the lane left the ring, and the work virtual time charged the lane (0 in `jobs` fairness:
  see fairOps; the caller charges the lane's tenant with it). A lane entry whose row is gone (another writer deleted it)
  is not served and not dropped: its id goes to the dead set (x.dead), where dead() shows it,
  and the `dead` total (x.stats) counts it; a lane that this leaves with neither pending nor active
  jobs goes through indexForget, as an ack's would.
  `tenant`: the lane's tenant (nil for none; ringKey/ringSetKey are then its tenant's ring), written
  into each row served (field `held`, see laneRing), so the ack that ends the job knows whose active count drops;
  a row never names a tenant its lane does not have (see laneRing's giveBack). `x.queueLimited`:
  the queue has a ceiling (queueLimit), so each row served is marked (`held` opens with '1'), and the release that
  ends the job asks whether it made room (see queueRoom); a queue without one reads nothing then. `x.now`: the
  call's server time (a `time` claim's mark, a rowless entry's death), so no turn asks TIME again;
  `x.weighted`, set here once per call, whether any lane of the queue has a weight.
  What it served is counted for shares() (servedShare: one ZINCRBY per lane per call).
  Numbers go to redis.call() as strings (counts through numText, the lease as Redis prints it,
  once per script rather than once per job: %d for a whole number of ms, the text %.17g makes of
  it at a third of the cost): Redis 7.0 formats every number argument anew.
]]
--- @per-call serveLeaseAt, serveLeaseText
local serveLeaseAt, serveLeaseText
--- @per-call serveLeases: a call that failed midway leaves leases in it
local serveLeases = {}

--[[
  flushLeases(activeKey, out): puts the leases of every job served since the last flush into the active
  set in one ZADD (the ids, scored by their lease deadline). Every script that serves must call it
  before it returns: until then the jobs are active in their rows but not yet leased. Once a job was
  served, the reply's lease (out[1]) becomes the text the leases were written with: a number in a
  reply costs the server a formatting.
]]
local function flushLeases(activeKey, out)
  if serveLeaseText then out[1] = serveLeaseText end
  local n = #serveLeases
  if n == 2 then
    -- NOTE: one job (a one-job claim): no unpack, no bounds.
    rcall('ZADD', activeKey, serveLeases[1], serveLeases[2])
    serveLeases[1], serveLeases[2] = nil, nil
    return
  end
  for i = 1, n, 1000 do rcall('ZADD', activeKey, unpack(serveLeases, i, math.min(n, i + 999))) end
  for i = n, 1, -1 do serveLeases[i] = nil end
end

local function serveLane(base, group, want, leaseUntil, out, ringKey, ringSetKey, activeKey, gactiveKey, active, limit, x, tenant)
  if leaseUntil ~= serveLeaseAt then
    serveLeaseAt, serveLeaseText = leaseUntil, string.format(leaseUntil == math.floor(leaseUntil) and '%d' or '%.17g', leaseUntil)
  end
  local laneKey = base .. 'g:' .. group .. ':pending'
  local popped = rcall('ZPOPMIN', laneKey, numText(want))
  local taken = #popped / 2
  local served = 0
  -- NOTE: in `cost` and `time` fairness the lane is charged what it was served (see fairOps):
  -- the rows' costs, or per job the queue's mean time, which the row's `vc` lets its ack correct.
  local work, mark, perJob = 0, nil, nil
  if fairBy == 'time' then
    perJob = fairOps().estimate(base)
    x.nowText = x.nowText or string.format('%d', x.now)
    mark = x.nowText .. ':' .. numText(perJob)
  end
  -- NOTE: the row's `held` (see laneRing), the same for every job of the lane: a tenant's common one
  -- read from heldOf's cache without the call.
  local held = tenant and not x.queueLimited and heldTexts[tenant]
  if not held and (tenant or x.queueLimited) then held = heldOf(tenant, x.queueLimited) end
  for i = 1, #popped, 2 do
    local id = popped[i]
    local jobKey = base .. 'job:' .. id
    -- NOTE: `at` is only in the rows of caller-given ids (and rows before 0.2); without it the submit
    -- time is the id's mint time, which the reply leaves the client to read (submitted_at '0').
    local row
    if fairBy == 'cost' then
      row = rcall('HMGET', jobKey, 'payload', 'attempts', 'last_error', 'tc', 'at', 'cost')
    else
      row = rcall('HMGET', jobKey, 'payload', 'attempts', 'last_error', 'tc', 'at')
    end
    if row[1] then
      -- NOTE: the fencing token is the row's attempt count, raised here with the state in one HSET
      -- (read and written inside this one script, so no other writer comes between).
      local attempt = (numberOf(row[2]) or 0) + 1
      if mark and held then
        rcall('HSET', jobKey, 'state', 'active', 'attempts', numText(attempt), 'held', held, 'vc', mark)
      elseif mark then
        rcall('HSET', jobKey, 'state', 'active', 'attempts', numText(attempt), 'vc', mark)
      elseif held then
        rcall('HSET', jobKey, 'state', 'active', 'attempts', numText(attempt), 'held', held)
      else
        rcall('HSET', jobKey, 'state', 'active', 'attempts', numText(attempt))
      end
      serveLeases[#serveLeases + 1] = serveLeaseText
      serveLeases[#serveLeases + 1] = id
      out[#out + 1] = id
      out[#out + 1] = group
      out[#out + 1] = attempt
      out[#out + 1] = row[1]
      out[#out + 1] = row[5] or '0'
      if row[4] then
        out[#out + 1] = { row[3] or '', row[4] }
      else
        out[#out + 1] = row[3] or ''
      end
      served = served + 1
      if fairBy then work = work + (perJob or tonumber(row[6]) or 1) end
    else
      local deadAt = string.format('%d', x.now)
      -- NOTE: a row (its group, this lane) is counted in the lane's parked jobs, as buryJob counts; a
      -- missing one is not: nothing that takes the id out of the dead set could name its lane.
      if rcall('EXISTS', jobKey) == 1 then
        rcall('HSET', jobKey, 'state', 'dead', 'last_error', 'job has no payload', 'done', deadAt)
        parkedIn(base, group)
      end
      rcall('ZADD', x.dead, deadAt, id)
      rcall('HINCRBY', x.stats, 'dead', '1')
    end
  end
  if served > 0 then
    -- NOTE: a lane new to the active counts may have grown the hash past where a listpack pays (see grownHash).
    if rcall('HINCRBY', gactiveKey, group, numText(served)) == served then grownHash(gactiveKey) end
    servedShare(base, group, served, work, x.now)
  end
  -- NOTE: the depth left is counted (ZCARD) and written to the index as it is (ZADD): cheaper
  -- than a ZINCRBY, whose reply Redis formats as a double, and right even where another writer
  -- changed the lane without the index (compat mode).
  local left = rcall('ZCARD', laneKey)
  if taken == 0 then
    rcall('ZADD', x.lanes, 'XX', '0', group)
  elseif indexMoved(left + taken, left) then
    -- NOTE: the score is written only when the depth left its band (see indexMoved), and with it
    -- the lane's head entry takes the mint time of the last job popped (see headBack): every job
    -- left sorts after it. An entry a lane left empty stays until the lane is forgotten or a read
    -- finds it empty.
    local bound = left > 0 and mintMsOf(popped[#popped - 1])
    if bound then
      rcall('ZADD', x.lanes, numText(left), group, headScore(math.min(bound, x.now)), headEntry(group))
    else
      rcall('ZADD', x.lanes, numText(left), group)
    end
  end
  if left == 0 and served == 0 then
    -- NOTE: rare (rowless entries, or a lane found empty): `active` is only known under a ceiling.
    local activeNow = limit and active or tonumber(rcall('HGET', gactiveKey, group)) or 0
    if activeNow == 0 then indexForget(x.lanes, group, x.paused, x.glimit, x.gweight, x.grate, tenant or false) end
  end
  local start
  if work > 0 then
    -- NOTE: whether any lane has a weight, asked once per call (x is the call's): most queues have
    -- none, and then no turn reads one.
    if x.weighted == nil then x.weighted = rcall('EXISTS', x.gweight) == 1 end
    start = fairOps().charge(base, ringKey, group, work / (x.weighted and tonumber(rcall('HGET', x.gweight, group)) or 1))
  end
  if left == 0 or (limit and active + served >= limit) then
    if ringPlain then rcall('RPOP', ringKey) else ringOps().drop(base, ringKey, group, start) end
    rcall('SREM', ringSetKey, group)
    return served, true, work
  end
  return served, false, work
end
