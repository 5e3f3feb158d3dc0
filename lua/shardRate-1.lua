--[[
  shardRate: one shard's present completion rate (see includes/presentRate), read-only. position()
  on a sharded queue estimates a job's wait at the whole queue's rate, the sum of its shards' rates,
  since claims spread over every shard (see lib/lanes/jobs.ts).

  KEYS[1] stats  emq:{q}:stats (of the shard)

  Reply: { count, spanMs }: the completions of the shard's current busy spell and the ms they took
  (0, 0 when nothing completed in the last minute).
  Clock: server TIME.
]]
local rcall = redis.call
--- @include "nowMs"
--- @include "presentRate"
local count, spanMs = presentRate(KEYS[1], nowMs())
return { count, math.floor(spanMs) }
