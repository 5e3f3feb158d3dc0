--[[
  changeFence(KEYS, ARGV) -> false when the call comes from a change of the shard count (see
  setShards) and its shard no longer holds the fence that change wrote there: a change that stalled
  past its lock must not write a setting or a binding over a later change's. Such a call ends its
  KEYS with the shard's emq:{q}:shardgen (which no other call of these scripts passes) and its ARGV
  with that fence; both are taken off here, so the script reads its own keys and arguments as ever.
  (lib/scripts/lane-scripts.ts, LaneScripts.fencedBy.)
]]
local function changeFence(keys, argv)
  local key = keys[#keys]
  if not key or string.sub(key, -9) ~= ':shardgen' then return true end
  keys[#keys] = nil
  local fence = argv[#argv]
  argv[#argv] = nil
  return (redis.call('GET', key) or '') == fence
end
