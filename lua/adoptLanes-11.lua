--[[
  adoptLanes: brings a queue written before 0.2 into the 0.2 keyspace, a page of lanes per call. 0.1
  kept no lane index and no totals, so scanLanes, topLanes and the dashboard did not see its lanes,
  and stats().pending (derived from the totals) read 0. Every 0.2 script keeps both for the lanes it
  touches; this finds the rest through the sets that name every lane with work or a setting (as
  lanes() does) and indexes each at its depth. Run at boot for the consumers' queues, until it
  answers 1; once done, one HGET. Concurrent callers share the work: the position is kept on the
  server.

  KEYS[1]  meta     emq:{q}:meta      (field `adopt`: 'done', or where the next call goes on:
                                     "<source key's number>:<its cursor>:<c or n, counting or not>";
                                     field `heads`: 'done', or the cursor of the walk that gives a
                                     queue indexed before 0.3 its head entries, see includes/headBack)
  KEYS[2]  lanes    emq:{q}:lanes     (the lane index, scored by pending depth)
  KEYS[3]  stats    emq:{q}:stats     (field submitted)
  KEYS[4]  ringset  emq:{q}:ringset   (KEYS[4..8]: the sources, scanned in this order)
  KEYS[5]  paused   emq:{q}:paused
  KEYS[6]  gactive  emq:{q}:gactive
  KEYS[7]  glimit   emq:{q}:glimit
  KEYS[8]  gweight  emq:{q}:gweight
  KEYS[9]  active   emq:{q}:active
  KEYS[10] schedule emq:{q}:schedule
  KEYS[11] dead     emq:{q}:dead

  ARGV[1] base   'emq:{q}:'; must be the prefix of KEYS[4]
  ARGV[2] count  lanes to read per call (SSCAN/HSCAN COUNT hint, >= 1)

  Reply: { done, indexed }: done 1 when the queue is done (now or before), 0 when another call is
  needed; indexed, how many lanes this call put in the lane index (0 for a queue with nothing from
  before, so a caller can say nothing then).
  Totals: on the first call, a queue with no `submitted` total yet (nothing 0.2 has admitted) counts
  its jobs in flight (active, scheduled, dead) as submitted, and each lane this indexes adds its
  depth, so that pending reads right. A queue some 0.2 process has already admitted to is not
  counted: its jobs from before cannot be told apart, and pending may then read low (never below 0).
  Clock: none.
  Cost: O(count) a call (SSCAN/HSCAN with COUNT, a ZCARD and a ZADD a lane).
  Derived keys: each lane's pending set, from ARGV[1] pinned to KEYS[4].
]]
local rcall = redis.call
--- @include "headEntry"

local base, count = ARGV[1], tonumber(ARGV[2])
if not base or KEYS[4] ~= base .. 'ringset' or not count or count < 1 then
  return redis.error_reply('ERR echomq: adoptLanes arguments do not match its keys')
end
local at = rcall('HGET', KEYS[1], 'adopt')
if at == 'done' then
  -- NOTE: a queue indexed before the index had head entries (see includes/headBack) gains one for
  -- each lane holding jobs, scored by the floor (no known bound: the first read raises it).
  local heads = rcall('HGET', KEYS[1], 'heads')
  if heads == 'done' then return { 1, 0 } end
  local page = rcall('ZSCAN', KEYS[2], heads or '0', 'COUNT', count)
  local flat = page[2]
  for i = 1, #flat, 2 do
    local score = tonumber(flat[i + 1])
    if score > 0 and score < HEAD_FLOOR then rcall('ZADD', KEYS[2], 'NX', HEAD_FLOOR_TEXT, headEntry(flat[i])) end
  end
  rcall('HSET', KEYS[1], 'heads', page[1] == '0' and 'done' or page[1])
  return { page[1] == '0' and 1 or 0, 0 }
end

local counting
if not at then
  -- NOTE: the first call of all decides whether this queue's jobs from before are counted.
  counting = not rcall('HGET', KEYS[3], 'submitted')
  if counting then
    rcall('HINCRBY', KEYS[3], 'submitted', rcall('ZCARD', KEYS[9]) + rcall('ZCARD', KEYS[10]) + rcall('ZCARD', KEYS[11]))
  end
  at = '4:0:' .. (counting and 'c' or 'n')
end
local source, cursor, mode = string.match(at, '^(%d+):(%d+):([cn])$')
source = tonumber(source)
if not source or source < 4 or source > 8 then
  return redis.error_reply('ERR echomq: adoptLanes found a position it did not write in ' .. KEYS[1])
end
counting = mode == 'c'

local isSet = source <= 5
local reply = rcall(isSet and 'SSCAN' or 'HSCAN', KEYS[source], cursor, 'COUNT', count)
local found, added, indexed = reply[2], 0, 0
local step = isSet and 1 or 2
for i = 1, #found, step do
  local group = found[i]
  local depth = rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  -- NOTE: every source but the ring set names a lane with active jobs or a setting, which the index
  -- keeps at depth 0 too; a ring-set lane with nothing pending (it is about to leave) is left out.
  if depth > 0 or source > 4 then
    if depth > 0 then rcall('ZADD', KEYS[2], 'NX', HEAD_FLOOR_TEXT, headEntry(group)) end
    if rcall('ZADD', KEYS[2], depth, group) == 1 then
      added = added + depth
      indexed = indexed + 1
    end
  end
end
if counting and added > 0 then rcall('HINCRBY', KEYS[3], 'submitted', added) end

if reply[1] ~= '0' then
  rcall('HSET', KEYS[1], 'adopt', source .. ':' .. reply[1] .. ':' .. mode)
  return { 0, indexed }
end
-- NOTE: grate and gpause are 0.2's own settings (their lanes are indexed already): gweight, the
-- last setting 0.1 had, ends the walk.
if source < 8 then
  rcall('HSET', KEYS[1], 'adopt', (source + 1) .. ':0:' .. mode)
  return { 0, indexed }
end
rcall('HSET', KEYS[1], 'adopt', 'done', 'heads', 'done')
return { 1, indexed }
