--- @include "finishJob"
--- @include "queueEvent"
--- @include "laneParked"
--[[
  buryJob(base, jobKey, id, group, err, now, deadKey, statsKey, waited)
  Dead-letters a job whose attempts are spent: state `dead`, its last error, `done` (finishedAt),
  scored in the dead set by time of death, counted in the totals and in its lane's parked jobs
  (laneParked); a waiter (`waited`) is told.
]]
local function buryJob(base, jobKey, id, group, err, now, deadKey, statsKey, waited)
  local nowText = string.format('%d', now)
  rcall('HSET', jobKey, 'state', 'dead', 'last_error', err, 'done', nowText)
  rcall('ZADD', deadKey, nowText, id)
  parkedIn(base, group)
  rcall('HINCRBY', statsKey, 'dead', '1')
  if eventsHeard ~= false then queueEvent(base, 'dead', id, group, 'error', string.sub(err, 1, 200)) end
  if waited then
    local row = rcall('HMGET', jobKey, 'attempts', 'payload', 'at', 'max')
    finishJob(base .. 'done', true, { id = id, group = group, state = 'dead', attempts = row[1],
      payload = row[2], at = row[3], max = row[4] or '', last_error = err, done = nowText, result = '' })
  end
end
