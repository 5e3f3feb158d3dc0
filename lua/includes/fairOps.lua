--- @include "numText"
--- @include "fairMode"
--- @include "servedShare"
--[[
  Virtual time: how a ring is served in `cost` and `time` fairness (start-time fair queueing).
  Each entry of a ring in virtual time (a lane, or a tenant's entry on the queue's ring) has a
  virtual start, its score in <ring>:vt. A turn serves the entry with the smallest start and charges
  it the work it was served ÷ its weight: in `cost` the jobs' declared costs; in `time` an estimate
  at the claim (the queue's recent mean time, field `tmean` of emq:{q}:meta), corrected by the ack to the time the
  server measured from claim to ack (settle). The ring's virtual time V is its smallest start.
  An entry that joins starts at max(V, the start it left with): idling banks no credit (an idle lane
  starts at V, never below it) and leaving clears no debt (a lane that left ahead of V, having been
  served more, is put back there). What an entry left with is kept, only while it is ahead of V, in
  the ring's sorted set <ring>:owed (entry -> that start): an entry V has reached owes nothing, and
  each one put there sweeps out those V has reached, so the set holds only entries that left within
  the last turn's work of V, however many lanes ever came and went. Each ring's V while the ring is
  empty is kept in the hash emq:{q}:vtags: '{v}' for the queue's ring, '{v}<T>' for tenant T's ring,
  dropped with T's owed set when T is left with no lane (forgetTenant). No group name holds '{'.
  Bound (the README's): the entry served always has the smallest start and its start then grows
  by at most the largest work ÷ weight of one turn (c), so the starts on a ring never spread by more
  than c; the work ÷ weight two entries are served while both stay on the ring then differs by at
  most c from where they began (by at most 2c between any two moments of the stretch).
  Cost: O(log n) in the ring's entries per turn (ZRANGE, ZADD XX INCR), and one HGET of the lane's
  weight when the queue has weights (serveLane asks once per call); a join reads the ring's smallest
  start and the vtags hash once, a leave the smallest start (its own it is given by charge).
  fairOps() -> the table below, built on first use (see the closures NOTE in laneRing):
    .join(base, ring, entry, place?), .leave(base, ring, entry, start?) -> 1 | 0,
    .charge(base, ring, entry, amount) -> its new start (nil when off the ring or amount 0): the
      entry's start grows by amount (which may be negative: a correction); an entry off the ring
      carries it in vtags. .leave takes that start, when known, instead of reading it again
    .work(base, group, rows...) see serveLane; .settle(...) see below
]]
--- @shared fairFns: its functions take what a call read as arguments or per-call upvalues
local fairFns
local OWED_SWEEP = 100
local function fairOps()
  if fairFns then return fairFns end
  local F = {}
  fairFns = F

  -- A number as redis.call() is given it: whole ones (costs, ms) through numText's memo.
  local function num(x)
    if x % 1 == 0 and x > -1e15 and x < 1e15 then return numText(x) end
    return string.format('%.17g', x)
  end

  local function floorField(base, ring)
    if ring == base .. 'ring' then return '{v}' end
    return '{v}' .. string.sub(ring, #base + 3, -6)
  end

  -- The ring's virtual time: its smallest start, or while it is empty the start its last entry left with.
  function F.now(base, ring)
    local first = rcall('ZRANGE', ring .. ':vt', 0, 0, 'WITHSCORES')
    if first[2] then return tonumber(first[2]) end
    return tonumber(rcall('HGET', base .. 'vtags', floorField(base, ring))) or 0
  end

  -- Puts what `entry` owes on `ring` (a start ahead of the ring's V `v`), and sweeps out of the
  -- ring's owed set the entries V has reached (at most OWED_SWEEP a call: each put sweeps again).
  local function owe(ring, entry, start, v)
    local owed = ring .. ':owed'
    rcall('ZADD', owed, num(start), entry)
    local reached = rcall('ZRANGEBYSCORE', owed, '-inf', num(v), 'LIMIT', 0, OWED_SWEEP)
    if #reached > 0 then rcall('ZREM', owed, unpack(reached)) end
  end

  function F.join(base, ring, entry, place)
    local v = F.now(base, ring)
    local owed = tonumber(rcall('ZSCORE', ring .. ':owed', entry))
    if owed then
      rcall('ZREM', ring .. ':owed', entry)
      if owed > v then v = owed end
    end
    -- NOTE: `place` (a ring moving over from a list, see ringOps .move): the entry's place in the
    -- list's order, kept as a start a hair (2^-44 of V) past V per place, so that entries that all
    -- start at V are served in the rotation's order, not by name: a lane served just before the
    -- change is not served again first. A ring of 100,000 entries spreads over 6e-9 of V (6e-9 at
    -- V = 0): a small fraction of one turn's work until V passes some 10^7 turns of it.
    if place and place > 0 then v = v + place * math.max(math.abs(v), 1) * 2 ^ -44 end
    rcall('ZADD', ring .. ':vt', num(v), entry)
  end

  function F.leave(base, ring, entry, start)
    local vt = ring .. ':vt'
    -- NOTE: a caller that has just charged the entry knows its start (charge's reply): no ZSCORE.
    start = start or tonumber(rcall('ZSCORE', vt, entry))
    if not start then return 0 end
    rcall('ZREM', vt, entry)
    local first = rcall('ZRANGE', vt, 0, 0, 'WITHSCORES')
    if not first[2] then
      rcall('HSET', base .. 'vtags', floorField(base, ring), num(start))
    elseif start > tonumber(first[2]) then
      owe(ring, entry, start, tonumber(first[2]))
    end
    return 1
  end

  function F.charge(base, ring, entry, amount)
    if amount == 0 then return nil end
    local start = rcall('ZADD', ring .. ':vt', 'XX', 'INCR', num(amount), entry)
    if start then return tonumber(start) end
    -- NOTE: the entry has left the ring (an ack settling a claim of a lane that emptied meanwhile):
    -- what it owes waits in the owed set for its next join; a credit below V is no credit (see join).
    local v = F.now(base, ring)
    local owed = tonumber(rcall('ZSCORE', ring .. ':owed', entry)) or v
    if owed + amount > v then
      owe(ring, entry, owed + amount, v)
    else
      rcall('ZREM', ring .. ':owed', entry)
    end
  end

  -- Tenant T has no lane left (see laneLeavesTenant): its ring's V and owed set go with it. Its
  -- entry on the queue's ring keeps what it owes there.
  function F.forgetTenant(base, tenant)
    rcall('HDEL', base .. 'vtags', '{v}' .. tenant)
    rcall('DEL', base .. 't:' .. tenant .. ':ring:owed')
  end

  --[[
    F.estimate(base) -> ms: what a `time` claim charges a job before its ack says: the queue's
    recent mean time from claim to ack (field `tmean` of emq:{q}:meta, which a claim's dueWork has
    read already), else 1, rounded to a whole ms (at least 1); so a turn reads nothing for it.
  ]]
  function F.estimate(base)
    if fairTimeMean == nil then fairTimeMean = tonumber(rcall('HGET', base .. 'meta', 'tmean')) or false end
    -- NOTE: whole ms, as the ack measures: cheaper to write, and the ack corrects the rest.
    return math.max(1, math.floor((fairTimeMean or 1) + 0.5))
  end

  --[[
    F.settle(base, jobKey, group, tenant, mark, endedAt, rowGoes): a job claimed in `time` fairness
    stopped being active (its ack, a hand-back, a reaped lease) at endedAt (server clock). `mark` is the
    row's `vc`, '<claimedAt>:<charged>', deleted here (a later claim in another fairness must not find
    it) unless the caller deletes the row itself (`rowGoes`);
    the lane (and its tenant's entry) is charged the difference between the time it took and what
    its claim charged, and the queue's mean moves a quarter of the way to it; the lane's work in
    shares() takes the same correction (workSettled).
    Nothing more when the queue has left `time` fairness meanwhile.
  ]]
  function F.settle(base, jobKey, group, tenant, mark, endedAt, rowGoes)
    if not rowGoes then rcall('HDEL', jobKey, 'vc') end
    if fairMode(base) ~= 'time' then return end
    local at, charged = string.match(mark, '^(%d+):(.+)$')
    at, charged = tonumber(at), tonumber(charged)
    if not at or not charged then return end
    local took = math.max(endedAt - at, 0)
    local delta = took - charged
    local ring = tenant and (base .. 't:' .. tenant .. ':ring') or (base .. 'ring')
    local weight = tonumber(rcall('HGET', base .. 'gweight', group)) or 1
    F.charge(base, ring, group, delta / weight)
    workSettled(base, group, delta, at, endedAt)
    if tenant then
      local tenantWeight = tonumber(rcall('HGET', base .. 't:' .. tenant .. ':info', 'weight')) or 1
      F.charge(base, base .. 'ring', '{t}' .. tenant, delta / tenantWeight)
    end
    local meta = base .. 'meta'
    local queue = tonumber(rcall('HGET', meta, 'tmean')) or took
    rcall('HSET', meta, 'tmean', num(queue + (took - queue) / 4))
  end

  return F
end
