--[[
  resumeQueue: restart the claiming of a paused queue (clears the meta field `paused`, whoever set
  it) and wakes idle consumers: one per lane on the ring (at least one), up to the wake list's bound
  (16), so that every consumer that can help with the backlog wakes now rather than at its next
  timeout.

  KEYS[1] meta  emq:{q}:meta
  KEYS[2] wake  emq:{q}:wake
  KEYS[3] ring  emq:{q}:ring

  ARGV: none.

  Reply: 1 when the queue was paused before, 0 otherwise.
  Clock: none.
  Derived keys: the ring's virtual-time set <ring>:vt (see ringOps: one of the two is empty).
]]
local rcall = redis.call
--- @include "pushWake"

if rcall('HDEL', KEYS[1], 'paused') == 0 then return 0 end
-- NOTE: at least one token even with an empty ring: a consumer's claim also promotes what fell due
-- during the pause.
pushWake(KEYS[2], math.max(rcall('LLEN', KEYS[3]) + rcall('ZCARD', KEYS[3] .. ':vt'), 1))
return 1
