--[[
  nowMs() -> milliseconds since the epoch by the server clock (TIME).
]]
local function nowMs()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
