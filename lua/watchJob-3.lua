--[[
  watchJob: the second half of waitFor, run after the caller has subscribed to emq:{q}:done. Reads
  the job; when it is still unfinished, marks its row (field `waited`) so that whatever finishes it
  (complete, fail, reap) publishes the outcome. Being one script, it cannot fall between a finish
  and the mark: either the finish came first (the reply shows it) or it will see the mark.

  KEYS[1] job       emq:{q}:job:<id>
  KEYS[2] active    emq:{q}:active
  KEYS[3] schedule  emq:{q}:schedule

  ARGV[1] base     'emq:{q}:'
  ARGV[2] id       job id
  ARGV[3] recheck  '1' for a waiter's read after it subscribed (or resubscribed): a row that is gone
                   may have finished meanwhile, told to nobody; its outcome is then read from
                   emq:{q}:done:<id>, where completeJob keeps it 10 s (see finishJob)

  Reply: as readJob (the row; its state tells whether it is finished), or, on a recheck, the kept
  outcome (the announcement's JSON text), or an empty array when the queue does not hold the id.
  Marking an unfinished row drops an outcome kept for an earlier job under the same id.
  Clock: none.  Derived keys: emq:{q}:done:<id>, from ARGV[1], pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "readJob"

local base, id = ARGV[1], ARGV[2]
if KEYS[1] ~= base .. 'job:' .. id or KEYS[2] ~= base .. 'active' then
  return redis.error_reply('ERR echomq: watchJob arguments do not match its keys')
end
local heldKey = base .. 'done:' .. id
local row = readJob(KEYS[1], id, KEYS[2], KEYS[3])
if not row then
  if ARGV[3] == '1' then return rcall('HGET', heldKey, 'row') or {} end
  return {}
end
if row[2] ~= 'completed' and row[2] ~= 'dead' then
  rcall('HSET', KEYS[1], 'waited', '1')
  rcall('DEL', heldKey)
end
return row
