--[[
  dropJob(jobKey, id, dedupKey)
  Deletes a job's row, and its dedup entry when that entry still points at it. The caller has taken
  the id out of wherever it was (its lane, the schedule or the dead set) and counts it.
]]
local function dropJob(jobKey, id, dedupKey)
  local dedup = rcall('HGET', jobKey, 'dedup')
  if dedup and rcall('HGET', dedupKey, dedup) == id then rcall('HDEL', dedupKey, dedup) end
  rcall('DEL', jobKey)
end
