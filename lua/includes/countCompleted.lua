--[[
  countCompleted(statsKey, now, n)
  Adds n completions to the queue's totals (field `completed` of emq:{q}:stats) and to the bucket of
  the current second (field `s<second>`), from which stats and position read the completion rate of
  the last minute. The first completion of a new second also drops the buckets older than a minute,
  so the hash holds at most about 62 of them: one HINCRBY per call, plus O(62) once per second.
]]
local function countCompleted(statsKey, now, n)
  local text = string.format('%d', n)
  rcall('HINCRBY', statsKey, 'completed', text)
  local sec = math.floor(now / 1000)
  if rcall('HINCRBY', statsKey, 's' .. sec, text) ~= n then return end
  local fields = rcall('HKEYS', statsKey)
  for i = 1, #fields do
    local f = fields[i]
    if string.byte(f, 1) == 115 then
      local s = tonumber(string.sub(f, 2))
      if s and s < sec - 60 then rcall('HDEL', statsKey, f) end
    end
  end
end
