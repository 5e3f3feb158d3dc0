--[[
  submit: admit one job into the lane of its group (or the schedule, when delayed).

  KEYS[1]  job        emq:{q}:job:<id>

  The lane and the queue's keys are derived from ARGV[1] (pinned to KEYS[1], so they share its {q}
  slot) into the table K, numbered as they were passed before (a key passed costs a call about
  1,200 server instructions, one derived about half that):
  K[1]  lane       emq:{q}:g:<group>:pending
  K[2]  job        emq:{q}:job:<id>
  K[3]  ring       emq:{q}:ring
  K[4]  ringset    emq:{q}:ringset   (the lanes on the ring, for O(1) membership)
  K[5]  paused     emq:{q}:paused
  K[6]  glimit     emq:{q}:glimit
  K[7]  gactive    emq:{q}:gactive
  K[8]  schedule   emq:{q}:schedule
  K[9]  wake       emq:{q}:wake
  K[10] dedup      emq:{q}:dedup
  K[11] lanes      emq:{q}:lanes     (lane index, scored by pending depth)
  K[12] stats      emq:{q}:stats     (counters: submitted, completed, retried, dead, reaped)

  ARGV[1] base        'emq:{q}:', the prefix every key above starts with
  ARGV[2] id          job id (JOB + 11 base62)
  ARGV[3] group       lane name
  ARGV[4] payload     JSON text
  ARGV[5] dedupKey    '' for none
  ARGV[6] delayMs     0 to admit now
  ARGV[7] maxAttempts 0 to use the caller's default at fail/reap time
  ARGV[8] own         '1' when the caller supplied the id (a taken id is then a duplicate)
  ARGV[9] tc          optional: the W3C trace context of the submit, kept as row field `tc` ('' none)
  ARGV[10] tenant     optional: the lane's tenant ('' or absent: none named; see laneRing)
  ARGV[11] cost       optional: the job's cost, an integer 1..1000000 ('' or absent: 1; see admit)
  ARGV[12] bound      optional: '1' on a shard of a sharded queue. A submit naming no tenant is
                      sent to the lane's home: a lane bound to a tenant there (emq:{q}:bound, see
                      bindLanes) lives in its tenant's shard, so the reply then says which tenant,
                      and nothing is written. A submit naming a tenant is sent to the tenant's
                      shard: a lane recorded gone from that tenant there (emq:{q}:unbound, see
                      moveLane) has moved, so the reply says to ask its home ('moved', '');
                      '2' when the tenant is not the submit's but the lane's binding, as the
                      caller knows it: a lane here under another tenant than it has moved ('moved',
                      ''), and one under none that holds no job has let it go ('moved', '-': its
                      home is to drop the binding, see moveLane 'release'), nothing written
  ARGV[13] gen        optional: the gen of the shard map the submit was routed by ('' or absent: a
                      queue never sharded). A shard whose fence (emq:{q}:shardgen, see setShards; none
                      reads as '') names another admits nothing: the reply says so ('stale'), and the
                      caller reads the map again.

  Reply: { status, id }, status 'ok' | 'dup' | 'collide'; { 'tenant', current } when the lane holds
  jobs under another tenant (current, '' for none) than ARGV[10] names: nothing is written;
  { 'full', n } when the lane already holds its maxDepth n (see laneDepth): nothing is written;
  { 'moved', tenant } when ARGV[12] asked and the lane is bound to `tenant` ('' when the lane has
  left the tenant named: ask its home; '-' when it let the tenant of its binding go): nothing is written; { 'stale' } when the shard is fenced
  for another map than ARGV[13]'s: nothing is written.
  Clock: server TIME (submitted_at, due time of a delayed job).
  Derived keys: emq:{q}:job:<existing id> and emq:{q}:kept:<dedupKey> (a kept completion's dedup
  key), the lane ceilings emq:{q}:gdepth and delayed counts emq:{q}:gdelayed (see laneDepth), the lane's tenant emq:{q}:g:<group>:tenant and, under one, its tenant's ring and ring set
  emq:{q}:t:<tenant>:ring|ringset (see laneRing), from ARGV[1].
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "admit"
--- @include "laneHoldsJob"
--- @include "numberOf"
--- @include "compatMode"
--- @include "laneDepth"
--- @include "headBack"
--- @include "headReady"
--- @include "indexMoved"
--- @include "queueKeys"

local base, id, group, payload = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local dedup = ARGV[5]
local delayMs, maxAttempts = numberOf(ARGV[6]), numberOf(ARGV[7])
local own = ARGV[8] == '1'
if KEYS[1] ~= base .. 'job:' .. id or not delayMs or delayMs < 0 or not maxAttempts or maxAttempts < 0 then
  return redis.error_reply('ERR echomq: submit arguments do not match its keys')
end
local Q = queueKeys(base)
local K = { base .. 'g:' .. group .. ':pending', KEYS[1], Q.ring, Q.ringset, Q.paused, Q.glimit,
  Q.gactive, Q.schedule, Q.wake, Q.dedup, Q.lanes, Q.stats }
local tenant = ARGV[10] or ''
-- NOTE: a submit routed by a map older (or newer) than the shard's could put its job where the map
-- in force does not look for it, or a lane's jobs in two shards: refused, before anything is written.
if (rcall('GET', base .. 'shardgen') or '') ~= (ARGV[13] or '') then return { 'stale' } end
if ARGV[12] == '1' or ARGV[12] == '2' then
  if tenant == '' then
    local bound = rcall('HGET', base .. 'bound', group)
    if bound then return { 'moved', bound } end
  elseif rcall('HGET', base .. 'unbound', group) == tenant then
    return { 'moved', '' }
  end
end
local cost = ARGV[11] or ''
if cost ~= '' and not string.match(cost, '^[1-9]%d?%d?%d?%d?%d?$') and cost ~= '1000000' then
  return redis.error_reply('ERR echomq: submit cost must be an integer from 1 to 1000000')
end
local retag = false
local before = tenant ~= '' and (select(3, laneRing(base, group)) or '')
if ARGV[12] == '2' and before ~= tenant then
  return { 'moved', (before == '' and not laneHoldsJob(base, group, K[7])) and '-' or '' }
end
if tenant ~= '' and before ~= tenant then
  local current = tenantOps().conflict(base, group, tenant, K[7], before)
  if current then return { 'tenant', current } end
  retag = true
end
-- NOTE: a lane's maxDepth refuses a job that would be new, before anything is written (laneDepth).
if depthCeilings(base) then
  local room, n = laneDepth(base, group)
  if room and room < 1 and not knownJob(base, id, dedup, own, group, payload, K[10]) then return { 'full', n } end
end
-- NOTE: as in submitMany, the default mode joins the ring once the lane is counted.
local deferJoin = not compatMode()
local now = nowMs()
local status, jobId, laned = admit(base, id, group, payload, dedup, delayMs, maxAttempts, own, now,
  K[3], K[4], K[5], K[6], K[7], K[8], K[9], K[10], ARGV[9], deferJoin, tenant, cost)
if status == 'ok' then
  rcall('HINCRBY', K[12], 'submitted', '1')
  -- NOTE: a delayed job holds the lane's tenant too (laneParked), so the lane takes it now.
  if retag then tenantOps().adopt(base, group, tenant, K[4], before) end
  if laned then
    local depth = rcall('ZCARD', K[1])
    if depth == 1 then
      -- NOTE: the lane was empty: its head entry goes in with its depth, in the one ZADD (see headBack).
      rcall('ZADD', K[11], '1', group, headScore(math.min(now, mintMsOf(jobId) or now)), headEntry(group))
    elseif indexMoved(depth - 1, depth) then
      rcall('ZADD', K[11], string.format('%d', depth), group)
    end
    if deferJoin then
      -- NOTE: the lane's tenant, when this call read it (named one), spares ringJoin a GET.
      ringJoin(base, group, K[3], K[4], K[5], K[6], K[7], K[9], true, depth > 1 and 'on' or nil, nil, retag and tenant or before or nil)
    end
  end
end
return { status, jobId }
