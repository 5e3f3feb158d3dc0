--[[
  maxDepth: set or remove a lane's depth ceiling, the most jobs it may hold pending or scheduled
  (see includes/laneDepth). A ceiling below what the lane holds refuses new submits until it has
  drained below it; nothing already admitted is removed. Not a lane-index setting: an idle lane
  whose only setting is a ceiling is not listed by lanes(), and lane() reports it.

  KEYS[1] gdepth  emq:{q}:gdepth   (hash group -> n)

  ARGV[1] group  lane name
  ARGV[2] n      integer 1..10,000,000, or '' to remove the ceiling

  Reply: 1.
  Clock: none.  Derived keys: none.
  A change of the shard count's call ends KEYS with the shard's emq:{q}:shardgen and ARGV with the
  fence it wrote there, and writes nothing where the shard holds another (see includes/changeFence).
]]
local rcall = redis.call
--- @include "changeFence"
-- NOTE: a change of the shard count that lost its shard's fence to a later one writes nothing.
if not changeFence(KEYS, ARGV) then return redis.error_reply('ERR echomq: fenced: a later change of the shard count holds this shard') end
local group, text = ARGV[1], ARGV[2]
if text == '' then
  rcall('HDEL', KEYS[1], group)
  return 1
end
local n = tonumber(text)
if not n or n < 1 or n > 10000000 or n % 1 ~= 0 then
  return redis.error_reply('ERR echomq: maxDepth must be an integer from 1 to 10,000,000')
end
rcall('HSET', KEYS[1], group, text)
return 1
