--[[
  nowMs() -> milliseconds since the epoch by the server clock (TIME). The reply's two texts become
  numbers by arithmetic, which converts them as tonumber does, without a function call each.
]]
local function nowMs()
  local t = rcall('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end
