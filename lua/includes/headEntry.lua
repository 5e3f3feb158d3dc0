--[[
  The lane index's head entries (emq:{q}:lanes; see headBack for how they are kept): the one place
  that knows their encoding. A lane's head entry is '{h}' .. group (a group name never holds '{'),
  scored in ms since the epoch, never below HEAD_FLOOR (10^12); the lanes' depths stay below it, so
  the index's two kinds are its two score ranges: DEPTH_BELOW_HEADS (an exclusive bound) and up for
  the depths, HEAD_FLOOR_TEXT and up for the heads.
  headEntry(group) -> the lane's head entry; headGroup(entry) -> the lane an entry names;
  headScore(ms) -> the score of a bound of ms, as text.
]]
local HEAD_FLOOR = 1000000000000
local HEAD_FLOOR_TEXT = '1000000000000'
local DEPTH_BELOW_HEADS = '(1000000000000'

local function headEntry(group)
  return '{h}' .. group
end

local function headGroup(entry)
  return string.sub(entry, 4)
end

local function headScore(ms)
  return string.format('%d', math.max(HEAD_FLOOR, math.floor(ms)))
end
