--[[
  readJob(jobKey, id, activeKey, scheduleKey) -> flat row, or nil when the queue does not hold the id
  { id, state, group, attempts, payload, at, max, last_error, done, result, dueOrLease, progress }:
  the fields of the row ('' when absent), the lease deadline of an active job or the due time of a
  scheduled one ('' otherwise), and the progress its holder reported (JSON text, '' for none).
]]
local function readJob(jobKey, id, activeKey, scheduleKey)
  local r = rcall('HMGET', jobKey, 'state', 'group', 'attempts', 'payload', 'at', 'max', 'last_error', 'done', 'result', 'progress')
  if not r[1] then return nil end
  local extra
  if r[1] == 'active' then extra = rcall('ZSCORE', activeKey, id)
  elseif r[1] == 'scheduled' then extra = rcall('ZSCORE', scheduleKey, id) end
  return { id, r[1], r[2] or '', r[3] or '0', r[4] or '', r[5] or '0', r[6] or '', r[7] or '', r[8] or '',
    r[9] or '', extra or '', r[10] or '' }
end
