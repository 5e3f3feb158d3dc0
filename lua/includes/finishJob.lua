--[[
  finishJob(channel, waited, fields, holdMs)
  Announces a finished job (completed or dead) on the queue's `done` channel, but only when its row
  was marked by a waiter (field `waited`, set by watchJob): jobs nobody waits for pay nothing. The
  message is the row as JSON ({ id, group, state, attempts, payload, at, max, last_error, done,
  result }), so a waiter needs no further read even when the row is then deleted. With `holdMs`
  (a row that goes sooner than that) the message is also kept at `<channel>:<id>` (field `row`) for
  holdMs ms: a waiter that subscribed too late to hear it reads it there (watchJob's recheck).
]]
local function finishJob(channel, waited, fields, holdMs)
  if not waited then return end
  local message = cjson.encode(fields)
  rcall('PUBLISH', channel, message)
  if holdMs then
    local heldKey = channel .. ':' .. fields.id
    rcall('HSET', heldKey, 'row', message)
    rcall('PEXPIRE', heldKey, holdMs)
  end
end
