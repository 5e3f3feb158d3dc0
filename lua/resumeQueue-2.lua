--[[
  resumeQueue: restart the claiming of a paused queue (clears the meta field `paused`, whoever set
  it) and wakes an idle consumer, which then claims for the others too.

  KEYS[1] meta  emq:{q}:meta
  KEYS[2] wake  emq:{q}:wake

  ARGV: none.

  Reply: 1 when the queue was paused before, 0 otherwise.
  Clock: none.  Derived keys: none.
]]
local rcall = redis.call
--- @include "pushWake"

if rcall('HDEL', KEYS[1], 'paused') == 0 then return 0 end
pushWake(KEYS[2])
return 1
