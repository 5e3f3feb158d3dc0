--- @include "compatMode"
--[[
  The lane index (emq:{q}:lanes) scores a lane by its pending depth within a factor of two: the
  score and the depth are both 0, or both in the same band [2^k, 2^(k+1)). The hot paths (a claim,
  a submit) write a lane's score only when its depth leaves its band, and then write the depth
  itself, so a lane fed or served one job at a time costs the index a write at depths 1, 2, 4, 8, …
  rather than at every job; the rarer paths write the exact depth (indexGrew, laneShrunk). The
  reads rank lanes by band and read the exact depths back from the lanes (topLanes).
  In compat mode another writer (the EchoMQ reference) moves jobs without the index, so a lane's
  score there is written on every change, as before the bands.
  indexMoved(before, after) -> whether a lane whose depth went from `before` to `after` must have
  its score written.
]]
local function indexMoved(before, after)
  -- NOTE: compatMode()'s constant read directly (the loader flips that line for compat mode):
  -- this runs once per lane a claim serves, where the call would cost more than the test.
  if COMPAT then return true end
  -- NOTE: a step of one (a claim or a submit of one job, the common case) crosses an edge exactly
  -- when the larger depth is a power of two, whose mantissa is 0.5: one math.frexp call, not two.
  if after == before - 1 then return math.frexp(before) == 0.5 end
  if after == before + 1 then return math.frexp(after) == 0.5 end
  local _, from = math.frexp(before)
  local _, to = math.frexp(after)
  return from ~= to
end
