--[[
  pause: take a lane out of service: it leaves the ring and its pending jobs stay where they are.
  With forMs the lane resumes by itself at now + forMs (server clock): a timer p:<group> that the
  first claim after that time applies, exactly as resume would. A reason is kept for lane().

  KEYS[1] paused   emq:{q}:paused
  KEYS[2] glimit   emq:{q}:glimit
  KEYS[3] gactive  emq:{q}:gactive
  KEYS[4] ring     emq:{q}:ring
  KEYS[5] ringset  emq:{q}:ringset
  KEYS[6] wake     emq:{q}:wake
  KEYS[7] lane     emq:{q}:g:<group>:pending
  KEYS[8] gpause   emq:{q}:gpause   (group -> "pausedUntil|reason", pausedUntil empty when untimed)
  KEYS[9] timers   emq:{q}:timers
  KEYS[10] lanes   emq:{q}:lanes    (lane index: a paused lane is listed even without work)

  ARGV[1] base    'emq:{q}:'
  ARGV[2] group   lane name
  ARGV[3] forMs   integer 1..315360000000 (ten years), or '' for a pause until resume
  ARGV[4] reason  at most 200 bytes, '' for none

  Reply: 1 when the lane joined the ring, -1 when it left, 0 otherwise.
  Clock: server TIME (the end of a timed pause).
  Derived keys: none.
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "ringSync"
--- @include "wakeBefore"
--- @include "unparkLane"
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end

local base, group, rawFor, reason = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local forMs = tonumber(rawFor)
if KEYS[4] ~= base .. 'ring' or KEYS[7] ~= base .. 'g:' .. group .. ':pending' or not reason or #reason > 200
   or (rawFor ~= '' and (not forMs or forMs < 1 or forMs > 315360000000 or forMs % 1 ~= 0)) then
  return redis.error_reply('ERR echomq: pause arguments do not match its keys')
end
rcall('SADD', KEYS[1], group)
rcall('ZADD', KEYS[10], 'NX', '0', group)
if forMs then
  local untilMs = nowMs() + forMs
  rcall('HSET', KEYS[8], group, string.format('%d', untilMs) .. '|' .. reason)
  wakeBefore(KEYS[9], untilMs, KEYS[6])
  rcall('ZADD', KEYS[9], string.format('%d', untilMs), 'p:' .. group)
else
  rcall('ZREM', KEYS[9], 'p:' .. group)
  if reason ~= '' then rcall('HSET', KEYS[8], group, '|' .. reason) else rcall('HDEL', KEYS[8], group) end
end
unparkLane(base, group, KEYS[9], KEYS[4], KEYS[5])
return ringSync(base, group, KEYS[4], KEYS[5], KEYS[1], KEYS[2], KEYS[3], KEYS[6])
