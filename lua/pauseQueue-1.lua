--[[
  pauseQueue: stop all claiming of a queue. The flag is the field `paused` of the queue's meta hash,
  where the EchoMQ reference keeps its queue-wide pause, so a pause by either holds for both. Lanes
  keep their own pause state, backlog and place in the ring.

  KEYS[1] meta  emq:{q}:meta

  ARGV: none.

  Reply: 1 when the queue was not paused before, 0 otherwise.
  Clock: none.  Derived keys: none.
]]
local rcall = redis.call
return rcall('HSETNX', KEYS[1], 'paused', '1')
