--[[
  rotateRing(ringKey) -> the lane moved from the head of the ring to its tail, nil when it is empty
  One step of the rota: LMOVE ring ring LEFT RIGHT. At maxmemory (noeviction) Redis refuses LMOVE
  as a script's first write, since it may grow memory, but lets a script that has already written
  go on; the same move is then made as LPOP (not refused) and RPUSH, so consumers can still claim,
  and by completing free memory.
]]
local function rotateRing(ringKey)
  local moved = redis.pcall('LMOVE', ringKey, ringKey, 'LEFT', 'RIGHT')
  if type(moved) ~= 'table' or not moved.err then return moved end
  local group = rcall('LPOP', ringKey)
  if group then rcall('RPUSH', ringKey, group) end
  return group
end
