--[[
  queueEvent(base, name, id, group, extra)
  Tells the processes that listen to the queue's events (@QueueEventsListener) that job `id` of lane
  `group` was submitted, completed, failed, died, reported progress or was cancelled: one PUBLISH of
  { event, jobId, group, ... `extra` } as JSON on the channel emq:{q}:events, never the payload.
  Only while some process listens: each keeps the key emq:{q}:listeners alive (PX), and a script
  asks once (EXISTS), the first time it has an event to tell. A queue nobody listens to pays that
  one read per script call that has an event, and publishes nothing. At most once, as pub/sub is.
]]
local eventsHeard
local function queueEvent(base, name, id, group, extra)
  if eventsHeard == nil then eventsHeard = rcall('EXISTS', base .. 'listeners') == 1 end
  if not eventsHeard then return end
  local m = extra or {}
  m.event, m.jobId, m.group = name, id, group
  rcall('PUBLISH', base .. 'events', cjson.encode(m))
end
