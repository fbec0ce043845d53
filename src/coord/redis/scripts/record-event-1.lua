--[[
  Records one event in a sliding window and counts the events the window holds.
  Times are the caller's, so every node counts on the same scale.

  Input:
    KEYS[1] sorted set of events, scored by time
    ARGV[1] now, in milliseconds
    ARGV[2] window, in milliseconds
    ARGV[3] member, unique per call, so that events at the same instant all count
  Output:
    the number of events in the window ending at now, this one included
]]
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])

redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
-- Events at or before now - window are outside the window ending at now.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
-- Once the newest event has left its window the whole key can go.
redis.call('PEXPIRE', KEYS[1], math.ceil(windowMs))
return redis.call('ZCARD', KEYS[1])
