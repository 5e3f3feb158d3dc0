--[[
  queueEvent(base, name, id, group, k1, v1, k2, v2, tenant)
  Tells the processes that listen to the queue's events (@QueueEventsListener) that job `id` of lane
  `group` was submitted, completed, failed, died, reported progress or was cancelled: one PUBLISH of
  { event, jobId, group, tenant, [k1] = v1, [k2] = v2 } as JSON on the channel emq:{q}:events, never
  the payload. `tenant`: the lane's tenant when the caller knows it (false: none); nil, and it is read
  from the lane (emq:{q}:g:<group>:tenant, once the queue has ever had a tenant: field `tenants` of
  emq:{q}:meta), which the caller must not have forgotten yet. Only an event that is heard reads it. Only while some process listens: each keeps the key emq:{q}:listeners alive (PX), and a
  script asks once (EXISTS), the first time it has an event to tell; after that `eventsHeard` says.
  A queue nobody listens to pays that one read per script call that has an event, and publishes
  nothing. Hot paths call it as `if eventsHeard ~= false then queueEvent(...) end`, so a job of an
  unheard queue costs one comparison. At most once, as pub/sub is.
]]
--- @per-call eventsHeard, eventsTenanted
local eventsHeard, eventsTenanted
local function queueEvent(base, name, id, group, k1, v1, k2, v2, tenant)
  if eventsHeard == nil then eventsHeard = rcall('EXISTS', base .. 'listeners') == 1 end
  if not eventsHeard then return end
  local m = { event = name, jobId = id, group = group }
  if tenant == nil and group ~= '' then
    if eventsTenanted == nil then eventsTenanted = rcall('HEXISTS', base .. 'meta', 'tenants') == 1 end
    tenant = eventsTenanted and rcall('GET', base .. 'g:' .. group .. ':tenant')
  end
  if tenant then m.tenant = tenant end
  if k1 then m[k1] = v1 end
  if k2 then m[k2] = v2 end
  rcall('PUBLISH', base .. 'events', cjson.encode(m))
end
