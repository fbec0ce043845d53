--[[
  Reserves one attempt under a limit before it is made, so that concurrent
  callers cannot get more than `max` attempts into a window. Times are the
  caller's. The same rules as MemoryCoordination.reserveAttempt; keep the two
  in step.

  Input:
    KEYS[1] sorted set of attempts, scored by time
    KEYS[2] lock: the time it ends, as text (used only when ARGV[6] is 1)
    KEYS[3] sorted set of attempts still pending, scored by when they stop
            being so (used only when ARGV[7] is above 0); settling one sets
            its score to 0 (`ZADD XX`), and this drops it
    ARGV[1] now, in milliseconds
    ARGV[2] window, in milliseconds
    ARGV[3] max attempts in the window
    ARGV[4] lock duration, in milliseconds (0: a full window refuses without locking)
    ARGV[5] member, unique per call, so that attempts at the same instant all count
    ARGV[6] 1 when KEYS[2] is a lock to honour and set, else 0
    ARGV[7] how long the attempt stays pending, in milliseconds (0: never
            pending); at most the window
  Output:
    {allowed (1|0), attempts in the window (this one included when allowed),
     lockedUntil or 0, busy (1|0)}
]]
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local lockMs = tonumber(ARGV[4])
local useLock = ARGV[6] == '1'
local pendingMs = tonumber(ARGV[7])

-- Attempts at or before now - window are outside the window ending at now.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local count = redis.call('ZCARD', KEYS[1])

if useLock then
  local lockedUntil = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  if lockedUntil > now then
    return {0, count, lockedUntil, 0}
  end
end

if count >= max then
  -- Attempts under way have not failed yet: refuse this one, but lock nothing.
  if pendingMs > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    if redis.call('ZCARD', KEYS[3]) > 0 then
      return {0, count, 0, 1}
    end
  end
  if useLock and lockMs > 0 then
    local lockedUntil = now + lockMs
    redis.call('SET', KEYS[2], string.format('%d', lockedUntil), 'PX', math.ceil(lockMs))
    return {0, count, lockedUntil, 0}
  end
  return {0, count, 0, 0}
end

redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
-- Once the newest attempt has left its window the whole key can go.
redis.call('PEXPIRE', KEYS[1], math.ceil(windowMs))
if pendingMs > 0 then
  redis.call('ZADD', KEYS[3], string.format('%d', now + pendingMs), ARGV[5])
  redis.call('PEXPIRE', KEYS[3], math.ceil(pendingMs))
end
return {1, count + 1, 0, 0}
