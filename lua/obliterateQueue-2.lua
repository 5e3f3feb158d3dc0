--[[
  obliterate (one page): delete keys of the queue. The first page (ARGV[3] '1') checks that no job
  is active, unless forced, and pauses the whole queue (meta field `paused`) so that no claim starts
  one meanwhile; every page then deletes (UNLINK: large values are freed off the main thread) the
  keys the caller found with SCAN MATCH emq:{q}:*. Each key must start with the queue's base.

  KEYS[1] active  emq:{q}:active
  KEYS[2] meta    emq:{q}:meta

  ARGV[1] base    'emq:{q}:'
  ARGV[2] force   '1' to delete while jobs are active, else '0'
  ARGV[3] first   '1' on the first page
  ARGV[4..] keys  keys of the queue to delete (at most 1000)

  Reply: how many keys were deleted, or -1 - active (nothing changed) when jobs are active and
  the call is not forced.
  Clock: none.
  Derived keys: the keys in ARGV[4..], each checked to start with ARGV[1], which is pinned to KEYS[1].
]]
local rcall = redis.call

local base, force, first = ARGV[1], ARGV[2] == '1', ARGV[3] == '1'
if KEYS[1] ~= base .. 'active' or #ARGV > 1003 then
  return redis.error_reply('ERR echomq: obliterateQueue arguments do not match its keys')
end
for i = 4, #ARGV do
  if string.sub(ARGV[i], 1, #base) ~= base then
    return redis.error_reply('ERR echomq: obliterateQueue was given a key of another queue')
  end
end
if first then
  local active = rcall('ZCARD', KEYS[1])
  if active > 0 and not force then return -1 - active end
  rcall('HSET', KEYS[2], 'paused', '1')
end
local n = 0
for i = 4, #ARGV do n = n + rcall('UNLINK', ARGV[i]) end
return n
