--[[
  lanes: list every lane that has pending or active jobs or a setting (read-only). By the ring
  invariant a lane with pending jobs is on the ring (or parked by its rate), paused, or has active
  jobs, so the union of those sets and of the settings names every such lane without a scan of
  the keyspace. O(lanes): for small queues (the lane scans page through large ones).

  KEYS[1] ringset  emq:{q}:ringset
  KEYS[2] paused   emq:{q}:paused
  KEYS[3] glimit   emq:{q}:glimit
  KEYS[4] gactive  emq:{q}:gactive
  KEYS[5] gweight  emq:{q}:gweight
  KEYS[6] grate    emq:{q}:grate
  KEYS[7] gpause   emq:{q}:gpause
  KEYS[8] timers   emq:{q}:timers
  KEYS[9] ring     emq:{q}:ring     (in compat mode its lanes are listed too: another writer may
                                     have put them there without the ring set)

  ARGV[1] base  'emq:{q}:'
  ARGV[2] max   at most this many lanes (>= 1)

  Reply: flat, one lane row per lane (see includes/laneRow), by name.
  Clock: server TIME (as laneRow).
  Derived keys: each lane's pending set, emq:{q}:gdepth (maxDepth), a tenant's ring set for its entry on the ring, the set
  of tenants and each one's lanes (see laneRing), the lane index emq:{q}:lanes, from ARGV[1] pinned to KEYS[1].
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "laneRow"

local base, max = ARGV[1], tonumber(ARGV[2])
if KEYS[1] ~= base .. 'ringset' or not max or max < 1 then
  return redis.error_reply('ERR echomq: lanes arguments do not match its keys')
end
local keys = { ringset = KEYS[1], paused = KEYS[2], glimit = KEYS[3], gactive = KEYS[4], gweight = KEYS[5],
  grate = KEYS[6], gpause = KEYS[7], timers = KEYS[8], ring = KEYS[9] }
local seen, names = {}, {}
local function add(list)
  for i = 1, #list do
    local g = list[i]
    if string.byte(g, 1) == 123 then
      -- NOTE: a tenant's entry ('{t}<tenant>', see laneRing) stands for the lanes on its own ring.
      add(rcall('SMEMBERS', base .. 't:' .. string.sub(g, 4) .. ':ringset'))
    elseif not seen[g] and #names < max then
      seen[g] = true
      names[#names + 1] = g
    end
  end
end
add(rcall('SMEMBERS', keys.ringset))
if compatMode() then add(rcall('LRANGE', keys.ring, 0, -1)) end
-- NOTE: the lanes of a tenant off the queue's ring (paused, at its limit) are on no set above. A
-- tenant's lanes also count those that hold only scheduled or dead jobs (they keep its tenant, see
-- laneParked), which this list leaves out, as stats().lanes does: only those the lane index names
-- (pending jobs or a setting) are taken.
for _, tenant in ipairs(rcall('SMEMBERS', base .. 'tenants')) do
  local members = rcall('SMEMBERS', base .. 't:' .. tenant .. ':lanes')
  for first = 1, #members, 1000 do
    local last = math.min(#members, first + 999)
    local scores = rcall('ZMSCORE', base .. 'lanes', unpack(members, first, last))
    local indexed = {}
    for i = first, last do
      if scores[i - first + 1] then indexed[#indexed + 1] = members[i] end
    end
    add(indexed)
  end
end
add(rcall('SMEMBERS', keys.paused))
add(rcall('HKEYS', keys.gactive))
add(rcall('HKEYS', keys.glimit))
add(rcall('HKEYS', keys.gweight))
add(rcall('HKEYS', keys.grate))
table.sort(names)
local now = nowMs()
local out = {}
for i = 1, #names do laneRow(base, names[i], now, keys, out) end
return out
