--[[
  grownHash(key): a field was just added to the hash at `key` (a hash that gains a field a lane or a
  job: the lanes' active and parked counts, their weights, ceilings and rates, the dedup keys); once
  it holds HASH_TABLE_AT fields, make it a hash table if the server still keeps it as a listpack. A
  listpack is searched from its start on every HGET, HSET and HINCRBY: in a hash of a few hundred
  fields (the server keeps up to hash-max-listpack-entries, 512 by default, that way) one HINCRBY of
  a lane's active count measured about 9k instructions, against about 1k in a hash table. Setting a
  field longer than hash-max-listpack-value turns the hash into a table for good (the server never
  turns one back), and the field is deleted in the same call: nobody ever reads it. Asked every
  HASH_TABLE_EVERY new fields of a key (one HLEN), counted per key in the function library (under
  EVALSHA the count starts again each call, so a hash there stays as the server keeps it but for a
  call that adds many fields).
]]
local HASH_TABLE_AT = 64
local HASH_TABLE_EVERY = 32
local HASH_TABLE_KEYS_MAX = 256
local HASH_TABLE_FIELD = '{echomq: a field longer than hash-max-listpack-value and deleted in the call that sets it}'
--- @shared grownCounts, grownKeyCount: per key, new fields seen; only decides when to ask
local grownCounts, grownKeyCount = {}, 0

local function grownHash(key)
  local n = grownCounts[key]
  if not n then
    if grownKeyCount == HASH_TABLE_KEYS_MAX then grownCounts, grownKeyCount = {}, 0 end
    grownKeyCount = grownKeyCount + 1
    n = 0
  end
  n = n + 1
  if n < HASH_TABLE_EVERY then
    grownCounts[key] = n
    return
  end
  grownCounts[key] = 0
  if rcall('HLEN', key) >= HASH_TABLE_AT then
    rcall('HSET', key, HASH_TABLE_FIELD, '')
    rcall('HDEL', key, HASH_TABLE_FIELD)
  end
end
