--[[
  oldestLanes: the lanes whose head jobs have been ready longest (stats().oldestWaitMs, the metric
  echomq_lane_wait_seconds, the dashboard), from the head entries of the lane index (see
  includes/headBack): exact, checking the heads in order of their bounds until a bound is past the
  count-th oldest found. Raises the bounds it checks and removes the entries of lanes found empty, so
  it writes.

  KEYS[1] lanes   emq:{q}:lanes   (the lane index with its head entries)

  ARGV[1] base    'emq:{q}:'; must be the prefix of KEYS[1]
  ARGV[2] count   lanes wanted (1..1,000)
  ARGV[3] budget  heads checked at most (>= 1): the call stops there, done = 0
  ARGV[4] below   '' or a ready time (ms) the caller already knows a count-th oldest at: heads whose
                  bound is not below it are not checked
  ARGV[5] from    '' or the bound of the last entry the caller's previous call checked (reply's lastBound)
  ARGV[6] member  '' or that entry (reply's lastMember): this call goes on after it

  Reply: { done (1, or 0 when the budget ran out), now, lastBound, lastMember, group1, ready1, group2,
  ready2, ... } oldest first (ready: ms, server clock; the head's wait is now - ready).
  Clock: server TIME (now, and the ceiling of a raised bound).
  Cost: O(budget log n): a ZRANGE and an HGET per head checked.
  Derived keys: the lanes' pending sets and job rows, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "oldestHeads"

local base, count, budget = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not base or KEYS[1] ~= base .. 'lanes' or not count or count < 1 or not budget or budget < 1 then
  return redis.error_reply('ERR echomq: oldestLanes arguments do not match its keys')
end
local now = nowMs()
local found, done, lastBound, lastMember = oldestHeads(KEYS[1], base, now, count, budget, tonumber(ARGV[4] or ''),
  tonumber(ARGV[5] or ''), ARGV[6] ~= '' and ARGV[6] or nil)
local out = { done and 1 or 0, string.format('%d', now), lastBound and string.format('%d', lastBound) or '', lastMember or '' }
for i = 1, #found do
  out[#out + 1] = found[i][1]
  out[#out + 1] = string.format('%d', found[i][2])
end
return out
