--[[
  setShards: check that one shard of a queue holds no job, and on shard 0 store the queue's shard
  map. A queue may be sharded (or its count changed) only while it holds no pending, scheduled,
  active or dead job (kept completed rows do not count); the caller moves lanes' and tenants'
  settings to their new shards around the change (lib/shards/settings-move.ts). The caller checks every other
  shard first (mode 'check'), then shard 0 checks itself again and writes (mode 'set'), in one script.
  Once the new count is stored, every shard of the old and the new map drops its lanes' bindings to
  tenants and its records of lanes gone from one (mode 'unbind': see bindLanes and moveLane; they
  were made for the old count, and the queue is empty).
  The fence: each shard's emq:{q}:shardgen names the map its submits must have been routed by (the
  map's gen; '' for an unsharded queue, whose submits name none; absent: any), and a submit routed
  by another map is refused before it writes (lua/submit, lua/submitMany) and goes again by the map
  read anew, so no process's old count (a process reads it about once a second) puts a job where the
  new map does not look for it, or a lane's jobs in two shards. Just before the 'set', every other
  shard of the new map and every shard it drops is fenced (mode 'fence': the new gen, or in a dropped
  shard DROPPED for FENCE_DROPPED_MS, written and the shard checked empty in one script, so a submit
  by the old map either came before and is found, or is refused); the 'set' fences shard 0 with the
  map it stores. A change that stops short is put back by mode 'restore', or by the next change.

  KEYS[1]  shards   emq:{q}:shards (a hash: n, tags, the shards' tags as JSON, and gen; modes 'check',
                    'fence' and 'restore' pass the shard's own key, which they never write)

  ARGV[1] base   'emq:{q}:' (or the base of the shard checked); must be the prefix of KEYS[1]
  ARGV[2] n      the shard count to store, 1..64 (1 deletes the hash: the queue is unsharded again)
  ARGV[3] mode   'check', 'set', 'unbind', 'fence' or 'restore'
  ARGV[4] tags   the shards' tags as JSON, '' for the plain ones (see lib/shards/shard-tags.ts)
  ARGV[5] gen    optional: a token stored with the map (field gen), new at every 'set', so that a
                 process that knew the old map (and its lanes' bindings) sees it changed; with
                 'fence', the shard's new fence (DROPPED for a dropped shard); with 'restore', the
                 fence to put back
  ARGV[6] had    with 'restore': '1' when the shard had a fence (ARGV[5]), '' when it had none

  Reply: { ok (1 when the shard holds no job; 0, and nothing written, when it does), the count
  stored before (1 when none) }; 'fence' adds the fence it replaced and 1, or '' and 0 for none.
  Clock: none.
  Derived keys: active, schedule, dead, pending (the flat set) and lanes (the lane index: a lane of
  depth >= 1 holds a pending job; a head entry alone may outlive its lane's jobs, see headBack) of
  the same shard, its bound and unbound (mode 'unbind') and its shardgen, from ARGV[1].
]]
local rcall = redis.call
--- @include "headEntry"

-- NOTE: what fences a dropped shard: no map's gen (hex) and not '' (an unsharded queue's).
local DROPPED = 'dropped'
-- NOTE: ten minutes: a process reads the count again before a call once it is 2 s old; only a
-- submit held that long in a client's queue (an outage, without callTimeoutMs) outlives the fence.
local FENCE_DROPPED_MS = '600000'

local base, n, mode, tags = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] or ''
if KEYS[1] ~= base .. 'shards' or not n or n < 1 or n > 64 or n % 1 ~= 0
   or (mode ~= 'check' and mode ~= 'set' and mode ~= 'unbind' and mode ~= 'fence' and mode ~= 'restore') then
  return redis.error_reply('ERR echomq: setShards arguments do not match its keys')
end
local fenceKey = base .. 'shardgen'
if mode == 'unbind' then
  rcall('DEL', base .. 'bound', base .. 'unbound')
  return { 1, n }
end
if mode == 'restore' then
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
  if fence == DROPPED then rcall('SET', fenceKey, fence, 'PX', FENCE_DROPPED_MS) else rcall('SET', fenceKey, fence) end
  return { 1, before, old or '', old and 1 or 0 }
end
if mode == 'set' then
  if n == 1 then
    rcall('DEL', KEYS[1])
    -- NOTE: a queue never sharded keeps no fence (any submit goes); one unsharded again fences its
    -- shard 0 with '', which the submits of the old map do not name.
    if before > 1 or rcall('EXISTS', fenceKey) == 1 then rcall('SET', fenceKey, '') end
  else
    rcall('HSET', KEYS[1], 'n', n)
    if tags ~= '' then rcall('HSET', KEYS[1], 'tags', tags) else rcall('HDEL', KEYS[1], 'tags') end
    if (ARGV[5] or '') ~= '' then rcall('HSET', KEYS[1], 'gen', ARGV[5]) else rcall('HDEL', KEYS[1], 'gen') end
    rcall('SET', fenceKey, ARGV[5] or '')
  end
end
return { 1, before }
