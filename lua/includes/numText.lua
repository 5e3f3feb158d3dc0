--[[
  numText(n) -> the integer n as the decimal text that redis.call() is given, remembered: a table
  lookup costs a sixth of a string.format, and the same few numbers (1, an attempt count, a lane's
  depth) recur within one script's many jobs, and (in the function library, where the table
  outlives the call) from call to call. It holds at most NUM_TEXTS_MAX numbers, then starts again.
]]
local NUM_TEXTS_MAX = 1024
--- @shared numTexts, numTextCount: what it holds follows from n alone, whichever call asked
local numTexts, numTextCount = {}, 0
local function numText(n)
  local text = numTexts[n]
  if not text then
    text = string.format('%d', n)
    if numTextCount == NUM_TEXTS_MAX then numTexts, numTextCount = {}, 0 end
    numTexts[n] = text
    numTextCount = numTextCount + 1
  end
  return text
end
