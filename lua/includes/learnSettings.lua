--[[
  learnSettings(pausedKey, glimitKey, gweightKey, grateKey)
  A batch script on the hot path (claims, submitMany, completeMany) asks once per call whether the
  queue has any paused lane, any ceiling (and, when it passes those keys, any weight or rate) at
  all, with EXISTS; a queue that has none is then not asked again per job or per lane. The answers
  are the flags anyPaused, anyLimit and anyWeightOrRate, true until learnt: in a script that never
  calls learnSettings the per-lane reads happen as before. A claim, submit or complete never adds a
  pause, a ceiling, a weight or a rate, so what it learnt stays true to its end (a timed pause that
  ends only removes one).
]]
--- @per-call anyPaused, anyLimit, anyWeightOrRate
local anyPaused, anyLimit, anyWeightOrRate = true, true, true
local function learnSettings(pausedKey, glimitKey, gweightKey, grateKey)
  anyPaused = rcall('EXISTS', pausedKey) == 1
  anyLimit = rcall('EXISTS', glimitKey) == 1
  if gweightKey then anyWeightOrRate = rcall('EXISTS', gweightKey, grateKey) > 0 end
end
