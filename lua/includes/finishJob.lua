--[[
  finishJob(channel, waited, fields)
  Announces a finished job (completed or dead) on the queue's `done` channel, but only when its row
  was marked by a waiter (field `waited`, set by watchJob): jobs nobody waits for pay nothing. The
  message is the row as JSON ({ id, group, state, attempts, payload, at, max, last_error, done,
  result }), so a waiter needs no further read even when the row is then deleted.
]]
local function finishJob(channel, waited, fields)
  if waited then rcall('PUBLISH', channel, cjson.encode(fields)) end
end
