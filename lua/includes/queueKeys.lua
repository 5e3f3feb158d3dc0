--[[
  queueKeys(base) -> the queue's own keys, built from its base ('emq:{q}:') and read as fields named
  by their suffix: ring, ringset, paused, glimit, gactive, active, schedule, timers, meta, lanes, wake,
  dedup, stats, gweight, grate, gpause, dead, pending, listeners. Built once per base and kept from
  call to call in the function library (a concatenation costs the server about 700 instructions, a
  field read a tenth of that, and a one-job call builds a dozen keys), for at most QUEUE_KEYS_MAX
  bases, then it starts again. Under EVALSHA (no function library) it is built on each call, as the
  keys were before. Callers only read it: it is the same table for every call of that base.
]]
local QUEUE_KEYS_MAX = 256
local QUEUE_KEY_NAMES = 'ring ringset paused glimit gactive active schedule timers meta lanes wake dedup stats gweight grate gpause dead pending listeners'
--- @shared queueKeyCache, queueKeyCount: what it holds follows from base alone, whichever call asked
local queueKeyCache, queueKeyCount = {}, 0
local function queueKeys(base)
  local k = queueKeyCache[base]
  if k then return k end
  k = {}
  for name in string.gmatch(QUEUE_KEY_NAMES, '%a+') do k[name] = base .. name end
  if queueKeyCount == QUEUE_KEYS_MAX then queueKeyCache, queueKeyCount = {}, 0 end
  queueKeyCache[base] = k
  queueKeyCount = queueKeyCount + 1
  return k
end
