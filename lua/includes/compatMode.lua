--[[
  compatMode() -> true in the variant of each script that the loader registers for the module option
  `compat: 'echomq'` (it flips the one line `local COMPAT = false`), false as written, so the
  default mode pays nothing for the switch. With it on, a queue may also be written by the EchoMQ
  reference, which keeps no ring set and moves lanes on and off the ring with plain list commands:
  ring membership is then read from the ring list itself (LPOS, O(ring length) as in the
  reference), a lane leaves it by LREM, and a flat job (a row without a group) that falls due or
  whose lease expires goes back to the flat pending set.
]]
local COMPAT = false
local function compatMode()
  return COMPAT
end
