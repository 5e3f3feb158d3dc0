--[[
  retryDead: put a dead-lettered job back into its own lane, at its mint position. Its attempt
  counter keeps counting up (old tokens stay stale), and it gets a fresh budget of attempts: the
  count at this moment is recorded as its base.

  KEYS[1] job      emq:{q}:job:<id>
  KEYS[2] dead     emq:{q}:dead
  KEYS[3] ring     emq:{q}:ring
  KEYS[4] ringset  emq:{q}:ringset
  KEYS[5] paused   emq:{q}:paused
  KEYS[6] glimit   emq:{q}:glimit
  KEYS[7] gactive  emq:{q}:gactive
  KEYS[8] wake     emq:{q}:wake
  KEYS[9] lanes    emq:{q}:lanes     (lane index, scored by pending depth)

  ARGV[1] base  'emq:{q}:'
  ARGV[2] id    job id

  Reply: 1 when the job went back, 0 when it is not dead (unknown, or not in the dead set).
  Clock: server TIME (when the job is claimable again, see markReady).
  Derived keys: the job's lane, its tenant emq:{q}:g:<group>:tenant and the tenant's ring and ring
  set (the row's `held`, see laneRing), from ARGV[1] pinned to KEYS[3].
]]
local rcall = redis.call
--- @include "indexGrew"
--- @include "ringJoin"
--- @include "nowMs"
--- @include "markReady"
--- @include "laneParked"

local base, id = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'job:' .. id or KEYS[3] ~= base .. 'ring' then
  return redis.error_reply('ERR echomq: retryDead arguments do not match its keys')
end
local row = rcall('HMGET', KEYS[1], 'state', 'attempts', 'group', 'held')
-- NOTE: a dead row without a group (a flat job of the EchoMQ reference) has no lane to go back to.
if row[1] ~= 'dead' or not row[3] then return 0 end
-- NOTE: counted out first, so the lane's own count does not hold it against the row's tenant.
parkedOut(base, row[3])
if row[4] and #row[4] > 1 then tenantOps().giveBack(base, KEYS[1], row[3], string.sub(row[4], 2), KEYS[7], KEYS[4]) end
rcall('ZREM', KEYS[2], id)
rcall('HSET', KEYS[1], 'state', 'pending', 'base', row[2])
markReady(KEYS[1], nowMs(), KEYS[9], row[3])
local laneKey = base .. 'g:' .. row[3] .. ':pending'
rcall('ZADD', laneKey, 0, id)
indexGrew(KEYS[9], row[3], laneKey, 1)
rcall('HDEL', KEYS[1], 'done')
ringJoin(base, row[3], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
return 1
