--[[
  clean (one page): remove finished jobs that finished at least `olderThanMs` ago (server clock).
  'dead': the oldest deaths first, from the dead set, at most `max`; each is counted in the
  `cancelled` total (it leaves the queue without completing). 'completed': the kept completed rows
  named in ARGV (the caller finds them with SCAN: kept rows are in no index); each row goes with its
  kept dedup key (kept:<dedupKey>, when it still points at it). The totals keep their `completed`.

  KEYS[1] dead   emq:{q}:dead     (scored by time of death)
  KEYS[2] dedup  emq:{q}:dedup
  KEYS[3] stats  emq:{q}:stats    (totals: `cancelled`)

  ARGV[1] base         'emq:{q}:'
  ARGV[2] kind         'dead' | 'completed'
  ARGV[3] olderThanMs  integer >= 0
  ARGV[4] max          how many at most to remove in this page (1..1000)
  ARGV[5..] ids        'completed': the job ids to look at (at most 1000)

  Reply: how many jobs were removed.
  Clock: server TIME (the age of a death or a completion).
  Derived keys: job rows, emq:{q}:kept:<dedupKey>, the lane index emq:{q}:lanes, emq:{q}:gparked
  and the lanes' tenant keys (see laneParked), from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "dropJob"
--- @include "laneParked"

local base, kind, older, max = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if KEYS[1] ~= base .. 'dead' or not older or older < 0 or not max or max < 1 or max > 1000
   or (kind ~= 'dead' and kind ~= 'completed') or #ARGV > 1004 then
  return redis.error_reply('ERR echomq: cleanJobs arguments do not match its keys')
end
local cutoff = nowMs() - older
local removed = 0
if kind == 'dead' then
  local ids = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', cutoff), 'LIMIT', '0', string.format('%d', max))
  for i = 1, #ids do
    local jobKey = base .. 'job:' .. ids[i]
    local group = rcall('HGET', jobKey, 'group')
    rcall('ZREM', KEYS[1], ids[i])
    dropJob(jobKey, ids[i], KEYS[2])
    parkedOut(base, group, base .. 'lanes')
  end
  removed = #ids
  if removed > 0 then rcall('HINCRBY', KEYS[3], 'cancelled', string.format('%d', removed)) end
  return removed
end
for i = 5, #ARGV do
  if removed >= max then break end
  local id = ARGV[i]
  local jobKey = base .. 'job:' .. id
  local row = rcall('HMGET', jobKey, 'state', 'done', 'dedup')
  if row[1] == 'completed' and (tonumber(row[2]) or 0) <= cutoff then
    rcall('DEL', jobKey)
    if row[3] then
      local keptKey = base .. 'kept:' .. row[3]
      if rcall('HGET', keptKey, 'id') == id then rcall('DEL', keptKey) end
    end
    removed = removed + 1
  end
end
return removed
