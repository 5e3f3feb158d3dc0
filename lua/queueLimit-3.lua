--[[
  queueLimit: set or clear the queue's ceiling on its active jobs over all lanes and tenants (BullMQ's
  global concurrency). Claims never lease past it, whatever the number of claimers (they count the
  active set); a queue that gains room wakes consumers (see queueRoom).

  KEYS[1] meta    emq:{q}:meta     (field limit)
  KEYS[2] wake    emq:{q}:wake
  KEYS[3] active  emq:{q}:active   (the leases: the queue's active jobs)

  ARGV[1] limit   integer 1..1000000, or '' to remove the ceiling
  ARGV[2] cursor  optional: '' (or left out) to set the limit; else a ZSCAN cursor of the active set
                  from the reply of the call that set it, to go on marking (below)

  A ceiling set where none was marks the rows of the jobs already active (row field `held` opens
  with '1', as a claim under a ceiling writes it; see serveLane), so the acks that end them, too,
  ask whether they made room (queueRoom) and wake a consumer idle at the ceiling: MARK_PAGE rows a
  call, walked with ZSCAN (a job leased meanwhile is marked by its claim; one ended meanwhile needs
  nothing), the caller calling again with the cursor until it is '0'.

  Reply: the cursor: '0' when nothing is left to mark.
  Clock: none.  Derived keys: the rows of the active jobs, emq:{q}:job:<id>, from the meta key's
  prefix (same {q} slot).
]]
local rcall = redis.call
--- @include "pushWake"

local MARK_PAGE = 500

local raw, cursor = ARGV[1], ARGV[2] or ''
local limit = tonumber(raw)
if raw ~= '' and (not limit or limit < 1 or limit > 1000000 or limit % 1 ~= 0) then
  return redis.error_reply('ERR echomq: queueLimit must be an integer from 1 to 1000000, or none')
end
if cursor ~= '' and not string.match(cursor, '^%d+$') then
  return redis.error_reply('ERR echomq: queueLimit cursor must be a ZSCAN cursor')
end

-- Marks a page of the active jobs' rows as served under the ceiling; returns the next cursor.
local function markPage(from)
  local base = string.sub(KEYS[1], 1, -5)
  local page = rcall('ZSCAN', KEYS[3], from, 'COUNT', MARK_PAGE)
  local ids = page[2]
  for j = 1, #ids, 2 do
    local jobKey = base .. 'job:' .. ids[j]
    local held = rcall('HGET', jobKey, 'held')
    -- NOTE: a row gone (the job ended between two pages) is not made again.
    if held and string.byte(held) ~= 49 then
      rcall('HSET', jobKey, 'held', '1' .. string.sub(held, 2))
    elseif not held and rcall('HEXISTS', jobKey, 'state') == 1 then
      rcall('HSET', jobKey, 'held', '1')
    end
  end
  return page[1]
end

if cursor ~= '' then
  -- NOTE: the ceiling removed meanwhile: nothing left to mark for.
  if not rcall('HGET', KEYS[1], 'limit') then return '0' end
  return markPage(cursor)
end
local before = tonumber(rcall('HGET', KEYS[1], 'limit'))
if limit then rcall('HSET', KEYS[1], 'limit', string.format('%d', limit)) else rcall('HDEL', KEYS[1], 'limit') end
-- NOTE: more room than before (or none at all): consumers idle at the old ceiling claim again.
local active = rcall('ZCARD', KEYS[3])
if before and active >= before and (not limit or limit > active) then pushWake(KEYS[2], 16) end
if limit and not before and active > 0 then return markPage('0') end
return '0'
