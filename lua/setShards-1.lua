--[[
  setShards: check that one shard of a queue holds no job, and on shard 0 store the queue's shard
  map. A queue may be sharded (or its count changed) only while it holds no pending, scheduled,
  active or dead job (kept completed rows do not count); the caller moves lanes' and tenants'
  settings to their new shards around the change (lib/shards/settings-move.ts). The caller checks every other
  shard first (mode 'check'), then shard 0 checks itself again and writes (mode 'set'), in one script.
  Before the new count is stored, each lane's binding to its tenant is written in its new home too,
  and after it the entries only the old count read are dropped (mode 'bindings': see bindLanes and
  moveLane, and lib/shards/bindings-move.ts); those a process makes by the new map stay.
  The fence: each shard of a sharded queue keeps in emq:{q}:shardgen the gen of the map its submits
  must have been routed by; a shard without one (shard 0 of a queue never sharded) takes only the
  submits of a queue never sharded, which name no gen, and a shard a change dropped holds '-' .. gen,
  which no map names. A submit routed by another map is refused
  before it writes (lua/submit, lua/submitMany) and goes again by the map read anew, so no process's
  old count (a process reads it about once a second) puts a job where the new map does not look for
  it, or a lane's jobs in two shards. After the checks, every shard of the new map and every shard it
  drops is fenced (mode 'fence': its fence written, or deleted, and the shard checked empty in one
  script, so a submit by the old map either came before and is found, or is refused), then the
  settings are copied and the 'set' stores the map. A change that stops short is put back by mode
  'restore', or by the next change. One change at a time: 'lock' takes emq:{q}:resharding (in shard 0)
  for LOCK_MS unless another holds it (the holder renews it), 'unlock' gives it back if it is
  still the caller's. A queue unsharded again keeps a map (n 1) with a gen, and shard 0 its fence:
  a submit routed by the map from before the queue was sharded (which names none) is told apart.

  KEYS[1]  shards   emq:{q}:shards (a hash: n, tags, the shards' tags as JSON, and gen; modes 'check',
                    'fence' and 'restore' pass the shard's own key, which they never write)

  ARGV[1] base   'emq:{q}:' (or the base of the shard checked); must be the prefix of KEYS[1]
  ARGV[2] n      the shard count to store, 1..64 (1: the queue is unsharded again; the hash keeps n and gen)
  ARGV[3] mode   'check', 'set', 'fence', 'restore', 'lock', 'unlock', 'meta' (the
                 queue's fairness and pause written into this shard's meta, as the change copies
                 them from shard 0: ARGV[6] the fairness, '' for jobs, ARGV[7] '1' paused; the
                 shard holds no job, so no ring has entries to move) or 'bindings' (lanes bound
                 to tenants here, and some unbound, and records of lanes gone from a tenant
                 dropped: ARGV[6] p, then p pairs lane, tenant; then q and q lanes; then r and r
                 lanes; see lib/shards/bindings-move.ts)
  ARGV[4] tags   the shards' tags as JSON, '' for the plain ones (see lib/shards/shard-tags.ts)
  ARGV[5] gen    optional: a token stored with the map (field gen), new at every 'set', so that a
                 process that knew the old map (and its lanes' bindings) sees it changed; with
                 'fence', the shard's new fence ('' deletes it); with 'restore', the fence to put
                 back; with 'lock' and 'unlock', the caller's token; with 'meta' and 'bindings'
                 (optional), the fence the shard must hold, else nothing is written
                 (reply { 0, n })
  ARGV[6] had    with 'restore': '1' when the shard had a fence (ARGV[5]), '' when it had none;
                 with 'lock': '1' to renew the caller's lock (never to take it); with 'set': the
                 caller's lock token, and the map is stored only while the lock is still the caller's
  ARGV[7] expect optional, with 'restore': the fence the shard must still hold ('' none), else
                 nothing is put back (reply { 0, n })

  Reply: { ok (1 when the shard holds no job; 0, and nothing written, when it does; -1 from 'set',
  nothing written, when the caller's lock has lapsed), the count stored before (1 when none) };
  'fence' adds the fence it replaced and 1, or '' and 0 for none;
  'lock' answers { 1 when taken, 0 when another holds it, n }.
  A change whose process died leaves fences for a map never stored; once its lock has lapsed, the
  first call they refuse takes the lock and puts back the fences of the map in force with 'restore'
  (lib/shards/fence-mend.ts). A change that only stalled past its lock may then not store its map:
  'set' asks for the lock.
  Clock: none.
  Derived keys: active, schedule, dead, pending (the flat set) and lanes (the lane index: a lane of
  depth >= 1 holds a pending job; a head entry alone may outlive its lane's jobs, see headBack) of
  the same shard, its bound, boundv and unbound (mode 'bindings'), its shardgen and resharding, from ARGV[1].
]]
local rcall = redis.call
--- @include "headEntry"
--- @include "pushWake"

-- NOTE: how long a change holds the queue's lock unless it renews it (it does every second while it
-- runs): a killed one keeps the next waiting this long at most.
local LOCK_MS = '3000'

local base, n, mode, tags = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] or ''
if KEYS[1] ~= base .. 'shards' or not n or n < 1 or n > 64 or n % 1 ~= 0
   or (mode ~= 'check' and mode ~= 'set' and mode ~= 'fence' and mode ~= 'restore'
       and mode ~= 'lock' and mode ~= 'unlock' and mode ~= 'meta' and mode ~= 'bindings') then
  return redis.error_reply('ERR echomq: setShards arguments do not match its keys')
end
local fenceKey = base .. 'shardgen'
-- NOTE: the writes a change makes after fencing ('meta', 'bindings') name the fence it wrote (ARGV[5]):
-- a change that stalled past its lock writes nothing where a later change has fenced since.
if (mode == 'meta' or mode == 'bindings') and ARGV[5] and (rcall('GET', fenceKey) or '') ~= ARGV[5] then
  return { 0, n }
end
if mode == 'bindings' then
  -- NOTE: ARGV[6] p, then p pairs (lane, tenant) bound here; then q, q lanes unbound here; then r, r
  -- lanes whose records of leaving a tenant go (see lib/shards/bindings-move.ts).
  local o = 6
  local p = tonumber(ARGV[o]) or 0
  -- NOTE: each binding written takes a new version and each one dropped loses its version, as in
  -- bindLanes: a release or move that read it before writes nothing over it.
  local version = p > 0 and rcall('HINCRBY', base .. 'boundv', '{seq}', '1')
  for i = o + 1, o + 2 * p, 2 do
    rcall('HSET', base .. 'bound', ARGV[i], ARGV[i + 1])
    rcall('HSET', base .. 'boundv', ARGV[i], version)
  end
  o = o + 2 * p + 1
  local q = tonumber(ARGV[o]) or 0
  if q > 0 then
    rcall('HDEL', base .. 'bound', unpack(ARGV, o + 1, o + q))
    rcall('HDEL', base .. 'boundv', unpack(ARGV, o + 1, o + q))
  end
  o = o + q + 1
  local r = tonumber(ARGV[o]) or 0
  if r > 0 then rcall('HDEL', base .. 'unbound', unpack(ARGV, o + 1, o + r)) end
  return { 1, n }
end
if mode == 'meta' then
  local metaKey, fair, paused = base .. 'meta', ARGV[6] or '', ARGV[7] == '1'
  if fair == '' then rcall('HDEL', metaKey, 'fair') else rcall('HSET', metaKey, 'fair', fair) end
  if fair ~= 'time' then rcall('HDEL', metaKey, 'tmean') end
  if paused then
    rcall('HSETNX', metaKey, 'paused', '1')
  elseif rcall('HDEL', metaKey, 'paused') == 1 then
    -- NOTE: as resumeQueue: one token, so a consumer's claim promotes what fell due meanwhile.
    pushWake(base .. 'wake', 1)
  end
  return { 1, n }
end
if mode == 'lock' then
  local lockKey, token = base .. 'resharding', ARGV[5] or ''
  -- NOTE: a renewal (ARGV[6] '1') only extends the holder's own lock: one sent just before the
  -- holder gave it back must not take it again.
  if ARGV[6] == '1' then
    if rcall('GET', lockKey) ~= token then return { 0, n } end
    rcall('PEXPIRE', lockKey, LOCK_MS)
    return { 1, n }
  end
  return { rcall('SET', lockKey, token, 'NX', 'PX', LOCK_MS) and 1 or 0, n }
end
if mode == 'unlock' then
  if rcall('GET', base .. 'resharding') == (ARGV[5] or '') then rcall('DEL', base .. 'resharding') end
  return { 1, n }
end
if mode == 'restore' then
  -- NOTE: with ARGV[7], only while the shard still holds that fence ('' none): a later change's
  -- fence is never put back over.
  if ARGV[7] and (rcall('GET', fenceKey) or '') ~= ARGV[7] then return { 0, n } end
  if ARGV[6] == '1' then rcall('SET', fenceKey, ARGV[5] or '') else rcall('DEL', fenceKey) end
  return { 1, n }
end
local before = tonumber(rcall('HGET', KEYS[1], 'n')) or 1
local jobs = rcall('ZCARD', base .. 'active') + rcall('ZCARD', base .. 'schedule') + rcall('ZCARD', base .. 'dead')
  + rcall('ZCARD', base .. 'pending') + rcall('ZCOUNT', base .. 'lanes', '1', DEPTH_BELOW_HEADS)
if jobs > 0 then return { 0, before } end
if mode == 'fence' then
  local old = rcall('GET', fenceKey)
  local fence = ARGV[5] or ''
  if fence == '' then rcall('DEL', fenceKey) else rcall('SET', fenceKey, fence) end
  return { 1, before, old or '', old and 1 or 0 }
end
if mode == 'set' then
  if (ARGV[6] or '') ~= '' and rcall('GET', base .. 'resharding') ~= ARGV[6] then return { -1, before } end
  if n == 1 then
    rcall('HSET', KEYS[1], 'n', '1')
    rcall('HDEL', KEYS[1], 'tags')
    if (ARGV[5] or '') ~= '' then rcall('HSET', KEYS[1], 'gen', ARGV[5]) else rcall('HDEL', KEYS[1], 'gen') end
    rcall('SET', fenceKey, ARGV[5] or '')
  else
    rcall('HSET', KEYS[1], 'n', n)
    if tags ~= '' then rcall('HSET', KEYS[1], 'tags', tags) else rcall('HDEL', KEYS[1], 'tags') end
    if (ARGV[5] or '') ~= '' then rcall('HSET', KEYS[1], 'gen', ARGV[5]) else rcall('HDEL', KEYS[1], 'gen') end
    rcall('SET', fenceKey, ARGV[5] or '')
  end
end
return { 1, before }
