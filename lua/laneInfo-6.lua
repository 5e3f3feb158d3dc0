--[[
  laneInfo: read one lane's state in one consistent snapshot (read-only).

  KEYS[1] lane     emq:{q}:g:<group>:pending
  KEYS[2] gweight  emq:{q}:gweight
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] paused   emq:{q}:paused
  KEYS[6] ringset  emq:{q}:ringset

  ARGV[1] group  lane name

  Reply: { pending, active, weight, limit (-1 for none), paused (0/1), inRing (0/1) }.
  Clock: none.  Derived keys: none.
]]
local rcall = redis.call
local group = ARGV[1]
return {
  rcall('ZCARD', KEYS[1]),
  tonumber(rcall('HGET', KEYS[4], group)) or 0,
  tonumber(rcall('HGET', KEYS[2], group)) or 1,
  tonumber(rcall('HGET', KEYS[3], group)) or -1,
  rcall('SISMEMBER', KEYS[5], group),
  rcall('SISMEMBER', KEYS[6], group),
}
