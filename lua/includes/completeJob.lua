--- @include "reopenLane"
--- @include "releaseActive"
--- @include "indexForget"
--- @include "finishJob"
--- @include "queueEvent"
--- @include "queueKeys"
--- @include "numberOf"
--[[
  completeJob(base, id, token, keepMs, result, now, activeKey, gactiveKey, glimitKey, pausedKey,
              ringKey, ringSetKey, dedupKey, wakeKey, indexKey, weightKey, grateKey, jobKey?) -> 1 | 0, queueLimited
  (the second: the row was served under a queue ceiling, so the caller asks queueRoom)
  Completes one job held under `token` (0, changing nothing, when the token is stale or the job
  unknown). Without keepMs the row is deleted; with it the row stays keepMs ms with state
  `completed`, `done` (finishedAt) and `result` ('' for none), and its dedup key points at it from
  `kept:<dedupKey>` (expiring with the row) so a submit with the same jobId or dedupKey returns this
  id. The lane's active count drops (and its tenant's, named by the row's `held`: see laneRing), a lane held at its ceiling rejoins the ring, an idle lane
  without settings leaves the index, and a waiter (row field `waited`) is told. The caller counts
  the completions (countCompleted).
  A row a waiter marked is kept no longer than any other (keepMs): the outcome a waiter is told goes
  to `done:<id>` too, for WAITED_KEEP_MS, so a waiter whose subscription was not yet active when the
  message went out reads it there (watchJob, recheck) once the row is gone.
]]
local WAITED_KEEP_MS = 10000
-- A batch (completeMany) collects the leases to drop and the rows to delete, and writes them in one
-- ZREM and one DEL when it ends (flushCompleted); nil when each completion writes its own.
--- @per-call completeBatch: a call that failed midway leaves its batch
local completeBatch

local function beginCompleteBatch()
  completeBatch = { leases = {}, rows = {}, seen = {} }
end

--[[
  flushCompleted(activeKey): drops the leases and deletes the rows a batch of completions
  collected, in chunks of 1,000 (what one call unpacks).
]]
local function flushCompleted(activeKey)
  local b = completeBatch
  completeBatch = nil
  if not b then return end
  for i = 1, #b.leases, 1000 do rcall('ZREM', activeKey, unpack(b.leases, i, math.min(#b.leases, i + 999))) end
  for i = 1, #b.rows, 1000 do rcall('DEL', unpack(b.rows, i, math.min(#b.rows, i + 999))) end
end

--[[
  What a row can hold beyond its contract fields decides what an ack asks of it, since each field
  asked of a row that lacks it is a scan of the whole row: `dedup` lives only while the queue's
  dedup hash holds its entry; `held` is written only under a tenant or a queue ceiling; `vc` only in
  `time` fairness (or while the rings move to a new mode). rowShape is nil (ask every field), or
  'plain' (none of the three) or 'held' (only `held`) when the call has learnt it.
  learnQuiet(base, pausedKey, glimitKey, weightKey, grateKey, dedupKey) -> true when the queue has no
  paused lane, ceiling, weight or rate and nobody listens to its events: the acks of the call then
  read none of them (learnSettings' flags and eventsHeard). One EXISTS of those five keys and of the
  dedup hash and meta hash: when none is there (the common case: no live job has a dedup key, no
  tenant, no queue ceiling, `jobs` fairness) rowShape is 'plain' too; when one is, a second EXISTS
  of the five. false: nothing is learnt, and each is asked where it matters.
  learnRows(base, dedupKey): for a batch that has not learnt rowShape, one EXISTS and one HMGET of
  the meta hash set it when only `held`, or none, can be there.
]]
--- @per-call rowShape
local rowShape
local function learnQuiet(base, pausedKey, glimitKey, weightKey, grateKey, dedupKey)
  local K = queueKeys(base)
  if rcall('EXISTS', pausedKey, glimitKey, weightKey, grateKey, K.listeners, dedupKey, K.meta) == 0 then
    rowShape = 'plain'
  elseif rcall('EXISTS', pausedKey, glimitKey, weightKey, grateKey, K.listeners) > 0 then
    return false
  end
  anyPaused, anyLimit, anyWeightOrRate, eventsHeard = false, false, false, false
  return true
end

local function learnRows(base, dedupKey)
  if rcall('EXISTS', dedupKey) == 1 then return end
  local m = rcall('HMGET', queueKeys(base).meta, 'tenants', 'limit', 'fair', 'fairMove')
  if m[3] == 'time' or m[4] then return end
  rowShape = (m[1] or m[2]) and 'held' or 'plain'
end

local function completeJob(base, id, token, keepMs, result, now, activeKey, gactiveKey, glimitKey, pausedKey,
                           ringKey, ringSetKey, dedupKey, wakeKey, indexKey, weightKey, grateKey, jobKey)
  jobKey = jobKey or base .. 'job:' .. id
  -- NOTE: in a batch, the row of a job completed earlier in it is deleted only at its end, so its
  -- second ack in the same batch is refused here.
  if completeBatch and completeBatch.seen[id] then return 0 end
  local state, attempts, group, dedup, waited, held, vc
  if rowShape == 'plain' then
    local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'waited')
    state, attempts, group, waited = row[1], row[2], row[3], row[4]
  elseif rowShape == 'held' then
    local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'waited', 'held')
    state, attempts, group, waited, held = row[1], row[2], row[3], row[4], row[5]
  else
    local row = rcall('HMGET', jobKey, 'state', 'attempts', 'group', 'dedup', 'waited', 'held', 'vc')
    state, attempts, group, dedup, waited, held, vc = row[1], row[2], row[3], row[4], row[5], row[6], row[7]
  end
  if state ~= 'active' or numberOf(attempts) ~= token then return 0 end
  local left
  if completeBatch then
    completeBatch.seen[id] = true
    completeBatch.leases[#completeBatch.leases + 1] = id
    left = releaseActive(gactiveKey, false, group, id)
  else
    left = releaseActive(gactiveKey, activeKey, group, id)
  end
  -- NOTE: `held` (see laneRing): whether a queue ceiling counted the job, and its tenant.
  local heldTenant = tenantOfHeld(held)
  -- NOTE: once the call knows that no tenant of the queue has a setting (see tenantOps .release),
  -- an ack under a tenant has no count to drop: no call.
  if heldTenant and tenantSettings ~= false then tenantOps().release(base, heldTenant, 1, ringKey, ringSetKey, wakeKey) end
  -- NOTE: a job claimed in `time` fairness (row field vc) is charged the time it took (see fairOps).
  -- A row that goes now keeps its `vc`: no HDEL for a key about to be deleted.
  if vc then fairOps().settle(base, jobKey, group, heldTenant, vc, now, keepMs <= 0) end
  local nowText
  if keepMs > 0 or waited then nowText = string.format('%d', now) end
  local full
  if waited then full = rcall('HMGET', jobKey, 'payload', 'at', 'max', 'last_error') end
  if keepMs > 0 then
    rcall('HSET', jobKey, 'state', 'completed', 'done', nowText, 'result', result)
    rcall('PEXPIRE', jobKey, keepMs)
    -- NOTE: a hash field cannot expire (not before Redis 7.4): left in the dedup hash, the key would
    -- outlive the row for good. It moves to a key of its own that expires with the row.
    if dedup then
      local keptKey = base .. 'kept:' .. dedup
      rcall('HDEL', dedupKey, dedup)
      rcall('HSET', keptKey, 'id', id)
      rcall('PEXPIRE', keptKey, keepMs)
    end
  else
    if completeBatch then completeBatch.rows[#completeBatch.rows + 1] = jobKey else rcall('DEL', jobKey) end
    if dedup then rcall('HDEL', dedupKey, dedup) end
  end
  if full then
    finishJob(base .. 'done', true, { id = id, group = group, state = 'completed', attempts = attempts,
      payload = full[1], at = full[2], max = full[3] or '', last_error = full[4] or '', done = nowText,
      result = result }, keepMs < WAITED_KEEP_MS and WAITED_KEEP_MS or nil)
  end
  if anyLimit then reopenLane(base, group, left, ringKey, ringSetKey, pausedKey, glimitKey, gactiveKey, wakeKey) end
  if left == 0 then indexForget(indexKey, group, pausedKey, glimitKey, weightKey, grateKey, heldTenant) end
  if eventsHeard ~= false then queueEvent(base, 'completed', id, group, 'attempt', token, nil, nil, heldTenant) end
  return 1, held and string.byte(held) == 49
end
