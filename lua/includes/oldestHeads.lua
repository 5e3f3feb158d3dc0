--- @include "headReady"
--- @include "headBack"
--[[
  oldestHeads(indexKey, base, now, count, budget, below, fromBound, fromMember) -> found, done, lastBound, lastMember
  The `count` lanes whose head jobs have been ready longest: `found` is a list of { group, ready }
  (ready ms, server clock; oldest first). Checks at most `budget` heads; `done` is false when it
  stopped for that: the caller calls again with `below`, the count-th ready time it knows (so the
  next call checks only what may beat it), and fromBound/fromMember, the last entry this one checked
  (so it goes on after it). Head entries found stale (an empty lane) are removed, and each bound it
  can raise is raised, after the scan (so its pages stay in place).
  A bound is raised to the head's mint time (never past now): every other job of the lane sorts
  after the head, so was minted later (a caller's own id too: jobId takes minted ids only, minted
  before their submit), and is ready no earlier than its mint; a job that comes back is ready no
  earlier than it came back, after now.
]]
local function oldestHeads(indexKey, base, now, count, budget, below, fromBound, fromMember)
  local found, checked, offset = {}, 0, 0
  local stale, raised = {}, {}
  local done, lastBound, lastMember = true, nil, nil
  local limit = below
  local min = fromBound and headScore(fromBound) or HEAD_FLOOR_TEXT
  while done do
    local page = rcall('ZRANGEBYSCORE', indexKey, min, '+inf', 'WITHSCORES', 'LIMIT', offset, 50)
    if #page == 0 then break end
    offset = offset + #page / 2
    for i = 1, #page, 2 do
      local bound = tonumber(page[i + 1])
      if limit and bound >= limit then
        page = nil
        break
      end
      -- NOTE: a call that goes on from where the last one stopped skips what that one checked (ties
      -- of a score are in member order).
      if not (fromMember and bound == fromBound and page[i] <= fromMember) then
        if checked >= budget then
          done = false
          break
        end
        checked = checked + 1
        lastBound, lastMember = bound, page[i]
        local group = headGroup(page[i])
        local head = rcall('ZRANGE', base .. 'g:' .. group .. ':pending', 0, 0)[1]
        if not head then
          stale[#stale + 1] = page[i]
        else
          local ready = headReady(base, head) or bound
          local at = #found + 1
          while at > 1 and found[at - 1][2] > ready do at = at - 1 end
          if at <= count then
            table.insert(found, at, { group, ready })
            if #found > count then found[#found] = nil end
            if #found == count and (not limit or found[count][2] < limit) then limit = found[count][2] end
          end
          local mint = mintMsOf(head)
          if mint and math.min(mint, now) > bound then
            raised[#raised + 1] = headScore(math.min(mint, now))
            raised[#raised + 1] = page[i]
          end
        end
      end
    end
    if not page then break end
  end
  if #stale > 0 then rcall('ZREM', indexKey, unpack(stale)) end
  if #raised > 0 then rcall('ZADD', indexKey, 'XX', unpack(raised)) end
  return found, done, lastBound, lastMember
end
