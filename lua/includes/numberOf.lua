--[[
  numberOf(text) -> tonumber(text), remembered: tonumber on a string costs a call about 1,000 server
  instructions (it parses the text twice), a table lookup a twentieth of that, and the same few
  texts recur on the hot paths (a lease length, an attempt count, a delay of 0, a job's maximum
  attempts), within one call and (in the function library, where the table outlives the call) from
  call to call. It holds at most NUMBERS_MAX texts, then starts again. nil for nil.
]]
local NUMBERS_MAX = 1024
--- @shared numbers, numberCount: what it holds follows from the text alone, whichever call asked
local numbers, numberCount = {}, 0
local function numberOf(text)
  if text == nil then return nil end
  local n = numbers[text]
  if n == nil then
    n = tonumber(text) or false
    if numberCount == NUMBERS_MAX then numbers, numberCount = {}, 0 end
    numbers[text] = n
    numberCount = numberCount + 1
  end
  return n or nil
end
