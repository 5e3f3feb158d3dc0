--- @include "headEntry"
--[[
  The lane index (emq:{q}:lanes) holds two kinds of member: a lane, its group name, scored by its
  pending depth; and that lane's head entry, '{h}' .. group (a group name never holds '{'), scored by
  a lower bound, in ms since the epoch, on when its head job became ready to serve (headReady). Depths
  stay below HEAD_FLOOR (10^12) and ready times above it, so each kind is one score range of the one
  set: the lanes with most pending are the top of the first range, the oldest heads the bottom of the
  second. One index, so the hot path pays no call for head age:
  - a submit that finds its lane empty writes the head entry in the same ZADD as the lane's depth;
  - a job put back in its lane (markReady: a retry, a reap, a hand-back, a promotion, retryDead)
    lowers the bound to its ready time (ZADD LT), in the call that raises the depth;
  - a claim that leaves jobs in the lane sets the bound to the mint time of the new head (one ZRANGE),
    in the ZADD of the depth it writes anyway: every job left sorts after the head, so was minted no
    earlier, and is ready no earlier than its mint (a job that comes back: than it came back). So the
    bound is the head's ready time itself, but for a head that came back from a delay or a retry;
  - the entry leaves with its lane (indexForget); one left by a lane emptied by a claim while it
    keeps active jobs or a setting is removed by the read that finds the lane empty.
  The reads (oldestHeads) check the heads in order of their bounds, exactly (headReady), stop at a
  bound past the oldest found, and raise each bound they can to the head's mint time (a bound then
  stays close, so the next read checks few lanes).
  The encoding is headEntry's.
  headBack(indexKey, group, readyAt): a job of the lane became ready at readyAt (ms, server clock).
  The reads are in oldestHeads.
]]
local function headBack(indexKey, group, readyAt)
  rcall('ZADD', indexKey, 'LT', headScore(readyAt), headEntry(group))
end

