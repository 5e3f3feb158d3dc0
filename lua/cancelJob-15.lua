--[[
  cancel: remove one job that is pending, scheduled or dead: its row and dedup entry go, it leaves
  its lane (the lane leaves the ring when that empties it, and the index when it is idle without
  settings), the schedule or the dead set, and the `cancelled` total counts it. An active,
  completed or unknown job is left as it is.

  KEYS[1]  job       emq:{q}:job:<id>
  KEYS[2]  ring      emq:{q}:ring
  KEYS[3]  ringset   emq:{q}:ringset
  KEYS[4]  paused    emq:{q}:paused
  KEYS[5]  glimit    emq:{q}:glimit
  KEYS[6]  gactive   emq:{q}:gactive
  KEYS[7]  schedule  emq:{q}:schedule
  KEYS[8]  dead      emq:{q}:dead
  KEYS[9]  wake      emq:{q}:wake
  KEYS[10] dedup     emq:{q}:dedup
  KEYS[11] lanes     emq:{q}:lanes     (lane index, scored by pending depth)
  KEYS[12] stats     emq:{q}:stats     (totals: `cancelled`)
  KEYS[13] gweight   emq:{q}:gweight
  KEYS[14] grate     emq:{q}:grate
  KEYS[15] timers    emq:{q}:timers    (a lane parked by its rate has r:<group> here)

  ARGV[1] base  'emq:{q}:'
  ARGV[2] id    job id

  Reply: { 1, group, state } when the job was removed (state: what it was), { 0 } otherwise.
  Clock: none.
  Derived keys: the job's lane, emq:{q}:gdelayed (see laneDepth), emq:{q}:gparked and the lane's
  tenant keys (see laneParked), from ARGV[1] pinned to KEYS[2].
  Pub/sub: publishes 'cancelled' to emq:{q}:events while emq:{q}:listeners exists (see includes/queueEvent).
]]
local rcall = redis.call
--- @include "dropJob"
--- @include "laneDepth"
--- @include "laneShrunk"
--- @include "queueEvent"
--- @include "laneParked"
--- @include "orderedLane"
--- @include "ringJoin"

local base, id = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'job:' .. id or KEYS[2] ~= base .. 'ring' then
  return redis.error_reply('ERR echomq: cancelJob arguments do not match its keys')
end
local row = rcall('HMGET', KEYS[1], 'state', 'group', 'held', 'attempts', 'ohold')
local state, group = row[1], row[2]
-- NOTE: the row names its tenant (see laneRing) even where its lane has not taken it yet (a delayed job).
local tenant = row[3] and #row[3] > 1 and string.sub(row[3], 2) or nil
if state == 'pending' then
  -- NOTE: a pending row without a group (a flat job of the EchoMQ reference) is not ours to cancel.
  if not group or rcall('ZREM', base .. 'g:' .. group .. ':pending', id) == 0 then return { 0 } end
elseif state == 'scheduled' then
  if rcall('ZREM', KEYS[7], id) == 0 then return { 0 } end
  delayedOut(base, group, row[4])
  -- NOTE: the retry an ordered lane was held for is gone, so the lane goes on to its next job.
  if row[5] then
    orderedLane().unhold(base, group, id, KEYS[5])
    ringJoin(base, group, KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[9])
  end
elseif state == 'dead' then
  if rcall('ZREM', KEYS[8], id) == 0 then return { 0 } end
else
  return { 0 }
end
dropJob(KEYS[1], id, KEYS[10])
rcall('HINCRBY', KEYS[12], 'cancelled', '1')
-- NOTE: told before the lane may be forgotten, so the event can still name the lane's tenant.
queueEvent(base, 'cancelled', id, group or '', 'state', state, nil, nil, tenant)
if state ~= 'pending' then
  -- NOTE: a scheduled or dead job was the lane's last hold on its tenant when the index has let the lane go.
  parkedOut(base, group, KEYS[11])
else
  laneShrunk(base, group, { ring = KEYS[2], ringset = KEYS[3], paused = KEYS[4], glimit = KEYS[5], gactive = KEYS[6],
    wake = KEYS[9], lanes = KEYS[11], gweight = KEYS[13], grate = KEYS[14], timers = KEYS[15] })
end
return { 1, group or '', state }
