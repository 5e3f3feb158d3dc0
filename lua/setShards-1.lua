--[[
  setShards: check that one shard of a queue holds no job, and on shard 0 store the queue's shard
  map. A queue may be sharded (or its count changed) only while it holds no pending, scheduled,
  active or dead job (kept completed rows do not count); the caller moves lanes' and tenants'
  settings to their new shards around the change (lib/shards/settings-move.ts). The caller checks every other
  shard first (mode 'check'), then shard 0 checks itself again and writes (mode 'set'), in one script.
  Once the new count is stored, every shard of the old and the new map drops its lanes' bindings to
  tenants and its records of lanes gone from one (mode 'unbind': see bindLanes and moveLane; they
  were made for the old count, and the queue is empty).
  A shard the new count drops is closed first (mode 'close', just before the 'set'): marked
  emq:{q}:closed and checked empty in one script, so a submit by the old count (a process reads the
  count about once a second) either came before and is found here, or is refused by the mark
  (lua/submit ARGV[12]) and goes again by the count read anew. The mark lives CLOSED_TTL_MS, well
  past any process's old count; a shard the new count keeps or adds is opened (mode 'open': the mark
  deleted) before the 'set', so a change that did not finish is undone by the next.

  KEYS[1]  shards   emq:{q}:shards (a hash: n, tags, the shards' tags as JSON, and gen; mode 'check' passes
                    the shard's own key, which is never written)

  ARGV[1] base   'emq:{q}:' (or the base of the shard checked); must be the prefix of KEYS[1]
  ARGV[2] n      the shard count to store, 1..64 (1 deletes the hash: the queue is unsharded again)
  ARGV[3] mode   'check', 'set', 'unbind', 'close' or 'open'
  ARGV[4] tags   the shards' tags as JSON, '' for the plain ones (see lib/shards/shard-tags.ts)
  ARGV[5] gen    optional: a token stored with the map (field gen), new at every 'set', so that a
                 process that knew the old map (and its lanes' bindings) sees it changed; with
                 'close', the value of the mark

  Reply: { ok (1 when the shard holds no job; 0, and nothing written, when it does: a shard found
  holding one is not closed), the count stored before (1 when none) }
  Clock: none.
  Derived keys: active, schedule, dead, pending (the flat set) and lanes (the lane index: a lane of
  depth >= 1 holds a pending job; a head entry alone may outlive its lane's jobs, see headBack) of
  the same shard, its bound and unbound (mode 'unbind') and its closed (modes 'close', 'open'), from ARGV[1].
]]
local rcall = redis.call
--- @include "headEntry"

-- NOTE: ten minutes: a process reads the count again before a call once it is 2 s old; only a
-- submit held that long in a client's queue (an outage, without callTimeoutMs) outlives the mark.
local CLOSED_TTL_MS = '600000'

local base, n, mode, tags = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] or ''
if KEYS[1] ~= base .. 'shards' or not n or n < 1 or n > 64 or n % 1 ~= 0
   or (mode ~= 'check' and mode ~= 'set' and mode ~= 'unbind' and mode ~= 'close' and mode ~= 'open') then
  return redis.error_reply('ERR echomq: setShards arguments do not match its keys')
end
if mode == 'unbind' then
  rcall('DEL', base .. 'bound', base .. 'unbound')
  return { 1, n }
end
if mode == 'open' then
  rcall('DEL', base .. 'closed')
  return { 1, n }
end
if mode == 'close' then rcall('SET', base .. 'closed', ARGV[5] or '1', 'PX', CLOSED_TTL_MS) end
local before = tonumber(rcall('HGET', KEYS[1], 'n')) or 1
local jobs = rcall('ZCARD', base .. 'active') + rcall('ZCARD', base .. 'schedule') + rcall('ZCARD', base .. 'dead')
  + rcall('ZCARD', base .. 'pending') + rcall('ZCOUNT', base .. 'lanes', '1', DEPTH_BELOW_HEADS)
if jobs > 0 then
  if mode == 'close' then rcall('DEL', base .. 'closed') end
  return { 0, before }
end
if mode == 'set' then
  if n == 1 then
    rcall('DEL', KEYS[1])
  else
    rcall('HSET', KEYS[1], 'n', n)
    if tags ~= '' then rcall('HSET', KEYS[1], 'tags', tags) else rcall('HDEL', KEYS[1], 'tags') end
    if (ARGV[5] or '') ~= '' then rcall('HSET', KEYS[1], 'gen', ARGV[5]) else rcall('HDEL', KEYS[1], 'gen') end
  end
end
return { 1, before }
