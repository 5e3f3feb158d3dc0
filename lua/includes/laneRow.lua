--[[
  laneRow(base, group, out, weightKey, glimitKey, gactiveKey, pausedKey, ringSetKey)
  Appends one lane's LaneInfo row to `out`: group, pending, active, weight, limit (-1 none),
  paused (0/1), inRing (0/1). Six reads, O(1) in the number of lanes.
]]
local function laneRow(base, group, out, weightKey, glimitKey, gactiveKey, pausedKey, ringSetKey)
  out[#out + 1] = group
  out[#out + 1] = rcall('ZCARD', base .. 'g:' .. group .. ':pending')
  out[#out + 1] = tonumber(rcall('HGET', gactiveKey, group)) or 0
  out[#out + 1] = tonumber(rcall('HGET', weightKey, group)) or 1
  out[#out + 1] = tonumber(rcall('HGET', glimitKey, group)) or -1
  out[#out + 1] = rcall('SISMEMBER', pausedKey, group)
  out[#out + 1] = rcall('SISMEMBER', ringSetKey, group)
end
