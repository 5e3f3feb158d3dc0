--[[
  announceListener: a process says it listens to the queue's events (field <token> of
  emq:{q}:listeners, which expires `ttlMs` after the last announcement of any process), or, with
  ttlMs 0, that it no longer does (the key goes with its last field). The scripts publish job events
  only while the key exists (see includes/queueEvent).

  KEYS[1] listeners  emq:{q}:listeners

  ARGV[1] token  the process's listener token
  ARGV[2] ttlMs  how long the announcement lasts (1..60000), 0 to withdraw it

  Reply: 1.
  Clock: none (the key's TTL).  Derived keys: none.
]]
local rcall = redis.call

local token, ttl = ARGV[1], tonumber(ARGV[2])
if not token or token == '' or not ttl or ttl < 0 or ttl > 60000 then
  return redis.error_reply('ERR echomq: announceListener arguments are not valid')
end
if ttl == 0 then
  rcall('HDEL', KEYS[1], token)
  return 1
end
rcall('HSET', KEYS[1], token, '1')
rcall('PEXPIRE', KEYS[1], ttl)
return 1
