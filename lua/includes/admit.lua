--- @include "laneDepth"
--- @include "ringJoin"
--- @include "wakeBefore"
--- @include "queueEvent"
--- @include "laneParked"
--- @include "grownHash"
--[[
  admit(base, id, group, payload, dedup, delayMs, maxAttempts, own, now, ...keys, tc, deferJoin, tenant, cost)
    -> status, id, laneKey (the lane's key when the job went into its lane, else nil)
  Admits one job: a row `job:<id>`, then either its lane (score 0, so ZPOPMIN serves mint order)
  or the schedule when it is delayed. A live (or kept completed) job under the same caller-given id
  or dedup key is not admitted twice: status 'dup' with the existing id. An id the library minted
  itself that is taken by another job comes back as 'collide', so the caller mints again instead of
  dropping the job; taken by the same job (same group and payload: a re-sent submit) it is 'dup'.
  `tc` (nil or '' for none) is the trace context of the submit, written as row field `tc` only when
  given, so a job without tracing costs nothing more.
  `deferJoin`: the caller puts the lane on the ring itself once it knows the lane's depth (see
  submitMany); otherwise a job admitted to its lane goes through ringJoin here.
  `tenant` (nil or '' for none): the tenant the submit named, kept in row field `held` (see
  laneRing); the caller has checked it and adopts it for the lane. `cost` (nil, '' or '1' for the
  default 1): what `cost` fairness charges the job's lane when it is served (row field `cost`, see
  fairOps), kept in every fairness so a later change of it finds the costs there.
  A delayed job is counted into its lane's delayed submits (laneDepth: a lane's maxDepth counts them)
  and its parked jobs (laneParked: they hold the lane's tenant).
]]
local function admit(base, id, group, payload, dedup, delayMs, maxAttempts, own, now,
                     ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, scheduleKey, wakeKey, dedupKey, tc, deferJoin, tenant, cost)
  if dedup ~= '' then
    -- A kept completion's key is not in the dedup hash but in its own key (see completeJob).
    local existing = rcall('HGET', dedupKey, dedup) or rcall('HGET', base .. 'kept:' .. dedup, 'id')
    if existing and rcall('EXISTS', base .. 'job:' .. existing) == 1 then return 'dup', existing end
  end
  local jobKey = base .. 'job:' .. id
  if rcall('EXISTS', jobKey) == 1 then
    if own then return 'dup', id end
    -- NOTE: a client re-sends the commands in flight when its connection drops (ioredis does), so
    -- a submit that already ran finds its own row: same group, same payload. That is this very job
    -- admitted once, not a collision; minting again would admit it twice.
    local row = rcall('HMGET', jobKey, 'group', 'payload')
    if row[1] == group and row[2] == payload then return 'dup', id end
    return 'collide', id
  end
  local state = 'pending'
  if delayMs > 0 then state = 'scheduled' end
  -- NOTE: only what cannot be derived, to keep the row a small listpack: the submit time of an id the
  -- library minted is in the id (its mint time). An id the caller gave may have been minted long
  -- before, so its submit time is kept (`at`, server clock). last_error stays (empty) because the
  -- contract's row has it. Optional fields only when set, all in one HSET.
  local tenanted = tenant and tenant ~= ''
  local costly = cost and cost ~= '' and cost ~= '1'
  local others = (tc and tc ~= '') or maxAttempts > 0 or dedup ~= '' or own or costly
  if tenanted and not others then
    -- NOTE: a tenant's common row, as cheap as the one below (no table of fields).
    rcall('HSET', jobKey, 'state', state, 'attempts', '0', 'payload', payload, 'group', group, 'last_error', '', 'held', heldOf(tenant))
  elseif others or tenanted then
    local fields = { 'state', state, 'attempts', '0', 'payload', payload, 'group', group, 'last_error', '' }
    if own then
      fields[#fields + 1] = 'at'
      fields[#fields + 1] = string.format('%d', now)
    end
    if tc and tc ~= '' then
      fields[#fields + 1] = 'tc'
      fields[#fields + 1] = tc
    end
    if maxAttempts > 0 then
      fields[#fields + 1] = 'max'
      fields[#fields + 1] = string.format('%d', maxAttempts)
    end
    if dedup ~= '' then
      fields[#fields + 1] = 'dedup'
      fields[#fields + 1] = dedup
    end
    if tenanted then
      fields[#fields + 1] = 'held'
      fields[#fields + 1] = heldOf(tenant)
    end
    if costly then
      fields[#fields + 1] = 'cost'
      fields[#fields + 1] = cost
    end
    rcall('HSET', jobKey, unpack(fields))
  else
    -- NOTE: the common row, written without building a table of its fields (a third cheaper).
    rcall('HSET', jobKey, 'state', state, 'attempts', '0', 'payload', payload, 'group', group, 'last_error', '')
  end
  -- NOTE: the dedup hash gains a field a job (see grownHash).
  if dedup ~= '' and rcall('HSET', dedupKey, dedup, id) == 1 then grownHash(dedupKey) end
  if eventsHeard ~= false then queueEvent(base, 'submitted', id, group, nil, nil, nil, nil, tenanted and tenant or nil) end
  if delayMs > 0 then
    wakeBefore(scheduleKey, now + delayMs, wakeKey)
    rcall('ZADD', scheduleKey, now + delayMs, id)
    delayedIn(base, group)
    parkedIn(base, group)
  else
    local laneKey = base .. 'g:' .. group .. ':pending'
    rcall('ZADD', laneKey, 0, id)
    if not deferJoin then ringJoin(base, group, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey, true) end
    return 'ok', id, laneKey
  end
  return 'ok', id, false
end
