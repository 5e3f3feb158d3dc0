--[[
  laneKeysOf(base, keys) -> keys, which from now on derives a key of the queue it lacks from base
  on its first read (keys.dead is base .. 'dead', and so on for the names of DERIVED_NAMES) and
  keeps it: a script is passed one key (each key passed costs a call about 1,200 server
  instructions) and builds the rest, and a rarer path still finds the keys it needs in the same
  table. A key derived on its first read costs a metamethod call, several times a plain
  concatenation, so a script puts in `keys` at once the keys every call reads. Any other name
  it lacks reads as nil, as before.
]]
local DERIVED_NAMES = ' ring ringset paused glimit gactive active schedule wake gweight timers grate gpause meta dead pending lanes stats '
local function deriveKey(keys, name)
  if type(name) ~= 'string' or not string.find(DERIVED_NAMES, ' ' .. name .. ' ', 1, true) then return nil end
  local key = rawget(keys, 'base') .. name
  rawset(keys, name, key)
  return key
end
--- @shared derivedKeys: its one function reads only the table it is given (the call's `keys`)
local derivedKeys = { __index = deriveKey }

local function laneKeysOf(base, keys)
  keys.base = base
  return setmetatable(keys, derivedKeys)
end
