--[[
  Reserves one attempt under a limit before it is made, so that concurrent
  callers cannot get more than `max` attempts into a window. Times are the
  caller's. The same rules as MemoryCoordination.reserveAttempt; keep the two
  in step.

  Input:
    KEYS[1] sorted set of attempts, scored by time
    KEYS[2] lock: the time it ends, as text (used only when ARGV[6] is 1)
    ARGV[1] now, in milliseconds
    ARGV[2] window, in milliseconds
    ARGV[3] max attempts in the window
    ARGV[4] lock duration, in milliseconds (0: a full window refuses without locking)
    ARGV[5] member, unique per call, so that attempts at the same instant all count
    ARGV[6] 1 when KEYS[2] is a lock to honour and set, else 0
  Output:
    {allowed (1|0), attempts in the window (this one included when allowed), lockedUntil or 0}
]]
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local lockMs = tonumber(ARGV[4])
local useLock = ARGV[6] == '1'

-- Attempts at or before now - window are outside the window ending at now.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local count = redis.call('ZCARD', KEYS[1])

if useLock then
  local lockedUntil = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  if lockedUntil > now then
    return {0, count, lockedUntil}
  end
end

if count >= max then
  if useLock and lockMs > 0 then
    local lockedUntil = now + lockMs
    redis.call('SET', KEYS[2], string.format('%d', lockedUntil), 'PX', math.ceil(lockMs))
    return {0, count, lockedUntil}
  end
  return {0, count, 0}
end

redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
-- Once the newest attempt has left its window the whole key can go.
redis.call('PEXPIRE', KEYS[1], math.ceil(windowMs))
return {1, count + 1, 0}
