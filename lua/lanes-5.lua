--[[
  lanes: list every lane that has pending or active jobs or a setting (read-only). By the ring
  invariant a lane with pending jobs is on the ring, paused, or has active jobs, so the union of
  those sets and of the settings names every such lane without a scan of the keyspace.

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] paused   emq:{q}:paused
  KEYS[3] gactive  emq:{q}:gactive
  KEYS[4] glimit   emq:{q}:glimit
  KEYS[5] gweight  emq:{q}:gweight

  ARGV[1] base  'emq:{q}:'
  ARGV[2] max   at most this many lanes (>= 1)

  Reply: flat, per lane: group, pending, active, weight, limit (-1 none), paused, inRing.
  Clock: none.
  Derived keys: each lane's pending set, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
local base, max = ARGV[1], tonumber(ARGV[2])
if KEYS[1] ~= base .. 'ringset' or not max or max < 1 then
  return redis.error_reply('ERR echomq: lanes arguments do not match its keys')
end
local seen, names = {}, {}
local function add(list)
  for i = 1, #list do
    local g = list[i]
    if not seen[g] and #names < max then
      seen[g] = true
      names[#names + 1] = g
    end
  end
end
add(rcall('SMEMBERS', KEYS[1]))
add(rcall('SMEMBERS', KEYS[2]))
add(rcall('HKEYS', KEYS[3]))
add(rcall('HKEYS', KEYS[4]))
add(rcall('HKEYS', KEYS[5]))
table.sort(names)
local out = {}
for i = 1, #names do
  local g = names[i]
  out[#out + 1] = g
  out[#out + 1] = rcall('ZCARD', base .. 'g:' .. g .. ':pending')
  out[#out + 1] = tonumber(rcall('HGET', KEYS[3], g)) or 0
  out[#out + 1] = tonumber(rcall('HGET', KEYS[5], g)) or 1
  out[#out + 1] = tonumber(rcall('HGET', KEYS[4], g)) or -1
  out[#out + 1] = rcall('SISMEMBER', KEYS[2], g)
  out[#out + 1] = rcall('SISMEMBER', KEYS[1], g)
end
return out
