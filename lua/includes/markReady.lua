--- @include "headBack"
--[[
  markReady(jobKey, readyAt, indexKey, group)
  Records in a job's row when it became claimable again other than by its submit: its due time (a
  delayed submit, a retry's backoff), or the moment a retry, a reap, a hand-back or retryDead put it
  back in its lane. Field `at` then reads "<submitted>:<ready>" (ms, server clock; the submit part is
  empty for an id whose mint time is its submit time), so a claim tells its wait from the right
  moment (the metric echomq_wait_seconds) without one more field to look up. The job is on its way
  back into `group`'s lane, so the lane's head entry in the lane index (indexKey) gets a bound no later
  than readyAt (see headBack). Off the hot path: never on a plain submit and claim.
]]
local function markReady(jobKey, readyAt, indexKey, group)
  local at = rcall('HGET', jobKey, 'at')
  local submitted = at and string.match(at, '^%d*') or ''
  rcall('HSET', jobKey, 'at', submitted .. ':' .. string.format('%d', readyAt))
  headBack(indexKey, group, readyAt)
end
