--[[
  nodeLease: holds a job-id node number (0..1023) for one process, so that no two live processes mint
  ids with the same node (their ids could then be equal). A lease rather than a bare counter: a
  number comes back into use only when its holder lets it go (release) or stops renewing it for
  leaseMs, never because 1,024 other processes started meanwhile.

  KEYS[1] leases   emq:node-leases   (hash: field `next`, where the next search for a free number
                                      starts; field <number>, "<holder's token> <lease end, ms>")

  ARGV[1] action   'take' | 'renew' | 'release'
  ARGV[2] token    the holder's random token (no spaces)
  ARGV[3] leaseMs  lease length (take, renew), >= 1
  ARGV[4] node     the number held (renew, release)

  Reply: { result, now }: now the server's clock (ms), from which the holder learns how far its own
  clock is off (ids are minted on the server's clock, see lib/ids/node-lease.ts); result for take:
  the number taken, or -1 - n when all 1,024 are held (n: where the search started, which the caller
  then keeps, as it would without leases); renew: 1, or 0 when the number is no longer this holder's;
  release: 1, or 0 when the number was not this holder's.
  Clock: server TIME. Cost: take reads up to 1,024 fields (about 1 ms when all are held), once per
  process start; renew and release O(1). One key, so it runs on any node of a cluster.
]]
local rcall = redis.call
--- @include "nowMs"

local action, token, leaseMs, node = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if not token or not string.match(token, '^%w+$') or (action ~= 'release' and (not leaseMs or leaseMs < 1)) then
  return redis.error_reply('ERR echomq: nodeLease arguments do not match its keys')
end
local now = nowMs()
if action == 'take' then
  local start = (rcall('HINCRBY', KEYS[1], 'next', '1') - 1) % 1024
  for i = 0, 1023 do
    local n = string.format('%d', (start + i) % 1024)
    local held = rcall('HGET', KEYS[1], n)
    local ends = held and tonumber(string.match(held, ' (%d+)$'))
    if not ends or ends <= now then
      rcall('HSET', KEYS[1], n, token .. ' ' .. string.format('%d', now + leaseMs))
      return { tonumber(n), now }
    end
  end
  return { -1 - start, now }
end
if action ~= 'renew' and action ~= 'release' then
  return redis.error_reply('ERR echomq: nodeLease action must be take, renew or release')
end
local held = node and rcall('HGET', KEYS[1], node)
if not held or string.match(held, '^(%w+) ') ~= token then return { 0, now } end
if action == 'renew' then
  rcall('HSET', KEYS[1], node, token .. ' ' .. string.format('%d', now + leaseMs))
else
  rcall('HDEL', KEYS[1], node)
end
return { 1, now }
