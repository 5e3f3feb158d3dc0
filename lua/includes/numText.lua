--[[
  numText(n) -> the integer n as the decimal text that redis.call() is given, remembered for the
  rest of the script: a table lookup costs a sixth of a string.format, and the same few numbers
  (1, an attempt count, a lane's depth) recur within one script's many jobs.
]]
--- @per-call numTexts: also bounds it (ids and depths would grow it without end)
local numTexts = {}
local function numText(n)
  local text = numTexts[n]
  if not text then
    text = string.format('%d', n)
    numTexts[n] = text
  end
  return text
end
