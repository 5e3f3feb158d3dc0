--[[
  submitMany: admit a chunk of jobs, each into the lane of its own group, in one round trip.

  KEYS[1] ring       emq:{q}:ring
  KEYS[2] ringset    emq:{q}:ringset
  KEYS[3] paused     emq:{q}:paused
  KEYS[4] glimit     emq:{q}:glimit
  KEYS[5] gactive    emq:{q}:gactive
  KEYS[6] schedule   emq:{q}:schedule
  KEYS[7] wake       emq:{q}:wake
  KEYS[8] dedup      emq:{q}:dedup
  KEYS[9] lanes      emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[10] stats     emq:{q}:stats

  ARGV[1] base       'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] count      n, the number of jobs; '?' .. n to check the tenants the jobs name and write
                     nothing (reply {} or the refusal below): a call of many chunks with lanes under a
                     maxDepth checks them all first; n .. '+' .. h when h values of `later` (below)
                     follow the jobs, lanes of the call's later chunks to be checked with them, or
                     '?0+' .. h to check only those (a call whose later chunks name more lanes than
                     one script should read sends them ahead in pages, see LATER_PER_CALL); any of
                     these with 'b' appended on a shard of a sharded queue: the jobs naming no tenant
                     are checked against the lanes bound to a tenant here (emq:{q}:bound, see
                     bindLanes), which live in their tenant's shard, and the jobs naming one
                     against the lanes recorded gone from it here (emq:{q}:unbound, see moveLane),
                     and a job's tenant may open with '{': the lane's binding as the caller knows
                     it, not the job's (see the reply 'moved');
                     then optionally ':' .. gen, the gen of the shard map the call was routed by
                     (none: a queue never sharded): a shard whose fence (emq:{q}:shardgen, see
                     setShards; none reads as '') names another admits nothing
  then 7 values per job: id, group, payload, dedupKey ('' none), delayMs, maxAttempts (0 default),
  own ('1' when the caller supplied the id); or 3 per job (id, group, payload) when every job of the
  chunk has the defaults of the other four and none of the values below (each value passed costs
  the call about 1,000 server instructions), or 4 (id, group, payload, tenant) when besides those
  defaults some job names a tenant; or 8 per job when some job of the chunk has a trace
  context: the 8th is the job's W3C trace context ('' for none), kept as row field `tc`; or 9 per
  job when some job of the chunk names a tenant: the 9th is its tenant ('' for none, see laneRing);
  or 10 per job when some job of the chunk has a cost: the 10th is its cost ('' for 1, see admit);
  then `later`: the lanes for which the call's later chunks name a tenant while this chunk names
  none (the first chunk of a call of many), in blocks of one tenant each: the tenant, k, then k
  groups (-k when an earlier item of the call puts a job into each of those lanes first). Checked
  as this chunk's own items are, before anything is written, so a call refused there writes no
  chunk, at the cost of about one value and one set member asked per lane rather than a second
  pass over every item.

  Reply: { 'done', item, status, id, ... } naming (1-based) only the items whose status is not 'ok'
  ('dup' or 'collide', with the id they came back with); every other item was admitted under its
  own id; or
  { 'tenant', item, current } when item (1-based) names a tenant for a lane that holds jobs under
  another (current, '' for none; earlier items of the call count), { 'later', i, current, ... }
  naming every such lane of `later` (i: 1-based, in the order given): nothing is written; { 'full',
  item, n } when item would take its lane past its maxDepth n (see laneDepth): nothing is written.
  A check-only call replies { 'room', group, room, new, n, ... } for the lanes with a maxDepth.
  With 'b': { 'moved', group, tenant, ... } for every lane named by a job that names no tenant and
  bound to a tenant here, and (tenant '') every lane gone from the tenant a job names for it, or
  here under another tenant than the binding a job was sent by, and (tenant '-') every lane sent by
  its binding that is here under no tenant and holds no job (it let the tenant go: its home is to
  drop the binding, see moveLane 'release'): nothing is written; { 'stale' } when the shard is fenced for another map: nothing is written.
  Clock: server TIME.
  Derived keys: emq:{q}:job:<id>, emq:{q}:g:<group>:pending, emq:{q}:kept:<dedupKey>, emq:{q}:gdepth
  and emq:{q}:gdelayed (see laneDepth), the lane's
  tenant emq:{q}:g:<group>:tenant and its tenant's ring and ring set (see laneRing), built from ARGV[1], which is pinned
  to the declared ring key, so they carry the same {q} hash tag and slot.
  Events: publishes to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "admit"
--- @include "compatMode"
--- @include "numText"
--- @include "numberOf"
--- @include "laneDepth"
--- @include "headBack"
--- @include "headReady"
--- @include "indexMoved"

local base = ARGV[1]
local routed, gen = string.match(ARGV[2], '^([^:]*):?(.*)$')
local bindCheck = string.sub(routed, -1) == 'b'
local countArg = bindCheck and string.sub(routed, 1, -2) or routed
local checkOnly = string.sub(countArg, 1, 1) == '?'
local count, laterCount = string.match(countArg, '^%??(%d+)%+(%d+)$')
local n = tonumber(count or (checkOnly and string.sub(countArg, 2)) or countArg)
local laterValues = tonumber(laterCount) or 0
local itemArgs = #ARGV - 2 - laterValues
local stride = 7
if n and n > 0 and itemArgs == n * 3 then stride = 3 end
if n and n > 0 and itemArgs == n * 4 then stride = 4 end
if n and n > 0 and itemArgs == n * 8 then stride = 8 end
if n and n > 0 and itemArgs == n * 9 then stride = 9 end
if n and n > 0 and itemArgs == n * 10 then stride = 10 end
-- NOTE: where an item's tenant is among its values (none in 3, 7 or 8 per job).
local tenantAt = (stride >= 9 and 8) or (stride == 4 and 3) or nil
local plain = stride == 3 or stride == 4
if KEYS[1] ~= base .. 'ring' or not n or n < 0 or itemArgs ~= n * stride then
  return redis.error_reply('ERR echomq: submitMany arguments do not match its keys')
end
-- NOTE: `later` comes in blocks, one per tenant (see the header): only each block's header is
-- checked here, a lane's own value is a group as given.
local laterBlocks = {}
do
  local o, stop = 3 + n * stride, #ARGV
  while o <= stop do
    local k = tonumber(ARGV[o + 1])
    if ARGV[o] == '' or not k or k == 0 or k % 1 ~= 0 or o + 1 + math.abs(k) > stop then
      return redis.error_reply('ERR echomq: submitMany arguments do not match its keys')
    end
    laterBlocks[#laterBlocks + 1] = o
    o = o + 2 + math.abs(k)
  end
end
-- NOTE: each item's numbers are parsed once, here, and kept for the loop below (tonumber on a
-- string costs about as much as a table write and read together, times four).
local delays, maxes = {}, {}
for i = 0, plain and -1 or n - 1 do
  local d, m = numberOf(ARGV[3 + i * stride + 4]), numberOf(ARGV[3 + i * stride + 5])
  if not d or d < 0 or not m or m < 0 then
    return redis.error_reply('ERR echomq: submitMany item ' .. (i + 1) .. ' has a bad number')
  end
  delays[i], maxes[i] = d, m
  local c = stride == 10 and ARGV[3 + i * stride + 9] or ''
  if c ~= '' and not string.match(c, '^[1-9]%d?%d?%d?%d?%d?$') and c ~= '1000000' then
    return redis.error_reply('ERR echomq: submitMany item ' .. (i + 1) .. ' has a bad cost')
  end
end
-- NOTE: a call routed by another map than the shard's admits nothing (see lua/submit ARGV[13]).
if (rcall('GET', base .. 'shardgen') or '') ~= gen then return { 'stale' } end
-- NOTE: a lane bound to a tenant lives in its tenant's shard: jobs naming no tenant for it go
-- there, so the caller is told where (all such lanes of the chunk at once) before anything is written.
if bindCheck then
  local groups, seen, named, namedSeen = {}, {}, {}, {}
  -- NOTE: a tenant opening with '{' is the lane's binding as the caller knows it, not the item's
  -- (a name never holds '{'): taken off here, and its lane checked below unless an item names it.
  local viaBinding, ownTenant, viaOrder = {}, {}, {}
  for i = 0, tenantAt and n - 1 or -1 do
    local at, g = 3 + i * stride + tenantAt, ARGV[3 + i * stride + 1]
    local t = ARGV[at]
    if string.byte(t, 1) == 123 then
      ARGV[at] = string.sub(t, 2)
      if not viaBinding[g] then viaOrder[#viaOrder + 1] = g end
      viaBinding[g] = ARGV[at]
    elseif t ~= '' then
      ownTenant[g] = true
    end
  end
  for i = 0, n - 1 do
    local g = ARGV[3 + i * stride + 1]
    local t = tenantAt and ARGV[3 + i * stride + tenantAt] or ''
    if t == '' and not seen[g] then
      seen[g] = true
      groups[#groups + 1] = g
    elseif t ~= '' and not namedSeen[g] then
      namedSeen[g] = t
      named[#named + 1] = g
    end
  end
  local moved, left = { 'moved' }, {}
  for first = 1, #named, 1000 do
    local last = math.min(#named, first + 999)
    local gone = rcall('HMGET', base .. 'unbound', unpack(named, first, last))
    for i = first, last do
      if gone[i - first + 1] == namedSeen[named[i]] then
        moved[#moved + 1] = named[i]
        moved[#moved + 1] = ''
        left[named[i]] = true
      end
    end
  end
  for first = 1, #groups, 1000 do
    local last = math.min(#groups, first + 999)
    local bound = rcall('HMGET', base .. 'bound', unpack(groups, first, last))
    for i = first, last do
      if bound[i - first + 1] then
        moved[#moved + 1] = groups[i]
        moved[#moved + 1] = bound[i - first + 1]
      end
    end
  end
  -- NOTE: a lane sent by its binding that is here under another tenant has moved (ask its home:
  -- ''); one under none that holds no job has let the tenant go ('-': its home is to drop the
  -- binding, see moveLane 'release'), unless an item of the call names a tenant for it.
  local checked = {}
  for i = 1, #viaOrder do
    local g = viaOrder[i]
    if not ownTenant[g] and not left[g] then checked[#checked + 1] = g end
  end
  if #checked > 0 then
    local now = laneTenants(base, checked)
    for i = 1, #checked do
      local g = checked[i]
      if now[g] ~= viaBinding[g] then
        moved[#moved + 1] = g
        moved[#moved + 1] = (now[g] == '' and not laneHoldsJob(base, g, KEYS[5])) and '-' or ''
      end
    end
  end
  if #moved > 1 then return moved end
end
-- NOTE: every tenant an item names is checked before anything is written; an earlier item of the
-- call counts as a job its lane holds (under the tenant the lane then has).
-- `retag` names the lanes whose tenant the call sets (read once: the lane's own tenant otherwise).
-- `laneOf`: each lane's tenant as this call read it, then set it ('' for none), spared a second
-- GET when the lane joins its ring below. `jobless`: the lanes asked that hold no job at all (the
-- lane index does not name them and they have no parked job), so they cannot be refused.
local retag, retagFrom, laneOf, jobless = {}, {}, {}, {}
if tenantAt or #laterBlocks > 0 then
  -- NOTE: the tenants of the lanes the chunk names are read at once (laneTenants: one MGET). A
  -- later lane is in its tenant's set of lanes exactly while its tenant key names that tenant
  -- (see adopt and indexForget), so one SMISMEMBER per block confirms those named for the tenant
  -- they have (the common case; with one value a lane, about 6.5k instructions a lane where three
  -- values, a pattern match and a key built and read cost 12.5k, by callgrind). The
  -- others are kept in doubt (dg, dt, dp, da: group, that tenant, its place in `later`, whether an
  -- item puts a job in first); one the lane index does not name and with no parked job holds no
  -- job, so unless an item puts one in first it cannot be refused, and only the rest are read.
  local groups, named, dg, dt, dp, da = {}, {}, {}, {}, {}, {}
  for i = 0, tenantAt and n - 1 or -1 do
    local g = ARGV[3 + i * stride + 1]
    if not named[g] then
      named[g] = true
      groups[#groups + 1] = g
    end
  end
  local sets = queueTenanted(base)
  local place = 1
  for b = 1, #laterBlocks do
    local o = laterBlocks[b]
    local t, k = ARGV[o], tonumber(ARGV[o + 1])
    local first, last = o + 2, o + 1 + math.abs(k)
    for from = first, last, 1000 do
      local to = math.min(last, from + 999)
      -- NOTE: pcall: an ACL user set up before SMISMEMBER was used (0.2's rules) is refused it;
      -- its lanes are then read, as the chunk's are.
      local hits = sets and redis.pcall('SMISMEMBER', base .. 't:' .. t .. ':lanes', unpack(ARGV, from, to))
      if hits and hits.err then hits = nil end
      for j = from, to do
        if not (hits and hits[j - from + 1] == 1) then
          local d = #dg + 1
          dg[d], dt[d], dp[d], da[d] = ARGV[j], t, place + j - first, k < 0
        end
      end
    end
    place = place + math.abs(k)
  end
  laneTenants(base, groups, laneOf)
  -- NOTE: a lane the lane index does not name holds no pending or active job (it names every lane
  -- with one): one ZMSCORE for the lanes the call retags spares each a ZCARD and an HGET.
  local asked, ask = {}, {}
  for i = 0, tenantAt and n - 1 or -1 do
    local g, t = ARGV[3 + i * stride + 1], ARGV[3 + i * stride + tenantAt]
    if t ~= '' and t ~= laneOf[g] and not asked[g] then
      asked[g] = true
      ask[#ask + 1] = g
    end
  end
  for i = 1, #dg do
    local g = dg[i]
    if (not named[g] or dt[i] ~= laneOf[g]) and not asked[g] then
      asked[g] = true
      ask[#ask + 1] = g
    end
  end
  local bare = {}
  for first = 1, #ask, 1000 do
    local last = math.min(#ask, first + 999)
    local scores = rcall('ZMSCORE', KEYS[9], unpack(ask, first, last))
    for i = first, last do
      if not scores[i - first + 1] then bare[#bare + 1] = ask[i] end
    end
  end
  -- NOTE: a lane the index does not name may still hold scheduled or dead jobs (laneParked), which
  -- hold its tenant too: asked only where the queue has any.
  local parked = #bare > 0 and rcall('EXISTS', base .. 'gparked') == 1
  for first = 1, #bare, 1000 do
    local last = math.min(#bare, first + 999)
    local counts = parked and rcall('HMGET', base .. 'gparked', unpack(bare, first, last))
    for i = first, last do
      if not (counts and counts[i - first + 1]) then jobless[bare[i]] = true end
    end
  end
  local unread = {}
  for i = 1, #dg do
    local g = dg[i]
    if not named[g] and (da[i] or not jobless[g]) then
      named[g] = true
      unread[#unread + 1] = g
    end
  end
  laneTenants(base, unread, laneOf)
  local held = {}
  for i = 0, tenantAt and n - 1 or -1 do
    local g, t = ARGV[3 + i * stride + 1], ARGV[3 + i * stride + tenantAt]
    if t ~= '' and t ~= laneOf[g] then
      if held[g] == nil then
        held[g] = not jobless[g] and laneHoldsJob(base, g, KEYS[5])
      end
      if held[g] then return { 'tenant', i + 1, laneOf[g] } end
      if retagFrom[g] == nil then retagFrom[g] = laneOf[g] end
      laneOf[g] = t
      retag[g] = t
    end
    -- NOTE: a delayed item too: its scheduled job holds the lane's tenant (laneParked).
    held[g] = true
  end
  -- NOTE: `later` is in blocks, not in call order, so every refused lane is named and the caller
  -- refuses the first of them in its call.
  local refused = { 'later' }
  for i = 1, #dg do
    local g, t, at, ahead = dg[i], dt[i], dp[i], da[i]
    -- NOTE: a lane left unread (laneOf nil) is one no item fills first, the index does not name
    -- and with no parked job: held is false for it, so it is never refused.
    if t ~= laneOf[g] then
      if not ahead and held[g] == nil then
        held[g] = not jobless[g] and laneHoldsJob(base, g, KEYS[5])
      end
      if ahead or held[g] then
        refused[#refused + 1] = at
        refused[#refused + 1] = laneOf[g]
      end
    end
  end
  if #refused > 1 then return refused end
end
-- NOTE: a lane's maxDepth is checked for the whole call before anything is written (laneDepth):
-- the jobs that would be new (not a duplicate on the server or earlier in the call) are counted
-- per lane. A check-only call replies each ceilinged lane's room and its new jobs here, so a call
-- of many chunks can add them up.
if depthCeilings(base) then
  local room, ceiling, fresh, seen, order = {}, {}, {}, {}, {}
  for i = 0, n - 1 do
    local o = 3 + i * stride
    local g = ARGV[o + 1]
    if room[g] == nil then
      local r, c = laneDepth(base, g)
      room[g], ceiling[g] = r or false, c
      if r then order[#order + 1] = g end
    end
    if room[g] then
      local id, dedup = ARGV[o], plain and '' or ARGV[o + 3]
      local mark = dedup ~= '' and ('d' .. dedup) or ('i' .. id)
      if not seen[mark] and not knownJob(base, id, dedup, not plain and ARGV[o + 6] == '1', g, ARGV[o + 2], KEYS[8]) then
        fresh[g] = (fresh[g] or 0) + 1
        if not checkOnly and fresh[g] > room[g] then return { 'full', i + 1, ceiling[g] } end
      end
      seen[mark] = true
    end
  end
  if checkOnly then
    local out = { 'room' }
    for i = 1, #order do
      local g = order[i]
      out[#out + 1] = g
      out[#out + 1] = room[g]
      out[#out + 1] = fresh[g] or 0
      out[#out + 1] = ceiling[g]
    end
    return out
  end
end
if checkOnly then return {} end
local now = nowMs()
-- NOTE: whether any lane is paused or has a ceiling, asked once per call rather than per job.
if n > 1 then learnSettings(KEYS[3], KEYS[4]) end
local out = { 'done' }
local added, groups, laneKeys, admitted, earliest = {}, {}, {}, 0, {}
-- NOTE: in the default mode a lane goes on the ring once per call, once it is counted (see below);
-- compat mode keeps the join of each job's lane as it is admitted, the way it was tested against the
-- reference.
local deferJoin = not compatMode()
if deferJoin and tenantAt then tenantsJoined = {} end
for i = 0, n - 1 do
  local o = 3 + i * stride
  local tc, tenant, cost
  if stride >= 8 then tc = ARGV[o + 7] end
  if tenantAt then tenant = ARGV[o + tenantAt] end
  if stride == 10 then cost = ARGV[o + 9] end
  local status, jobId, laneKey = admit(base, ARGV[o], ARGV[o + 1], ARGV[o + 2], plain and '' or ARGV[o + 3],
    delays[i] or 0, maxes[i] or 0, not plain and ARGV[o + 6] == '1', now,
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], tc, deferJoin, tenant, cost)
  if status ~= 'ok' then
    out[#out + 1] = i + 1
    out[#out + 1] = status
    out[#out + 1] = jobId
  end
  if status == 'ok' then
    admitted = admitted + 1
    if retag[ARGV[o + 1]] then
      tenantOps().adopt(base, ARGV[o + 1], retag[ARGV[o + 1]], KEYS[2], retagFrom[ARGV[o + 1]], jobless[ARGV[o + 1]])
      retag[ARGV[o + 1]] = nil
    end
    if laneKey then
      local g = ARGV[o + 1]
      local before = added[g]
      if not before then
        before = 0
        groups[#groups + 1] = g
        laneKeys[#groups] = laneKey
      end
      added[g] = before + 1
      -- NOTE: the lane's first new job in mint order (ids sort so), for its head entry (see headBack).
      if not earliest[g] or jobId < earliest[g] then earliest[g] = jobId end
    end
  end
end
-- NOTE: the index and the counter once per lane and once per call, not once per job. The lane is
-- counted (ZCARD) and its depth written to the index as it is (ZADD: cheaper than a ZINCRBY, whose
-- reply Redis formats as a double) when it left its band (see indexMoved). A lane that was empty
-- before this call needs to join the ring; one that had work is on it already, or kept off it by
-- its pause, ceiling or rate, which more work does not change, so it only gets its wake tokens.
for i = 1, #groups do
  local g, more = groups[i], added[groups[i]]
  local depth = rcall('ZCARD', laneKeys[i])
  if depth == more then
    -- NOTE: the lane was empty: its head entry goes in with its depth, in the one ZADD (see headBack).
    rcall('ZADD', KEYS[9], numText(depth), g, headScore(math.min(now, mintMsOf(earliest[g]) or now)), headEntry(g))
  elseif indexMoved(depth - more, depth) then
    rcall('ZADD', KEYS[9], numText(depth), g)
  end
  if not deferJoin then
    -- NOTE: compat mode joined each job's lane as it was admitted.
  elseif depth == more then
    ringJoin(base, g, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[7], true, nil, more, laneOf[g])
  elseif not wakeListFull() then
    -- NOTE: with no wake token left to push, a lane that had work needs nothing.
    ringJoin(base, g, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[7], true, 'on', more)
  end
end
if admitted > 0 then rcall('HINCRBY', KEYS[10], 'submitted', string.format('%d', admitted)) end
return out
