--[[
  Takes up to `requested` tokens from a bucket that refills at `rate` per second
  up to `burst`, after putting back `returned` tokens of an earlier grant the
  caller did not spend (never above `burst`). A bucket never seen (or
  forgotten once full) starts full. The same arithmetic as
  src/coord/token-bucket.ts; keep the two in step.

  Input:
    KEYS[1] bucket hash: tokens (fractions included), updatedAt
    ARGV[1] rate, tokens per second
    ARGV[2] burst
    ARGV[3] requested
    ARGV[4] now, the caller's time in milliseconds
    ARGV[5] returned, tokens given back (absent from callers before it: 0)
  Output:
    {granted, retryAfterMs}: retryAfterMs is 0 when all was granted, else the
    time until the rest (at most burst) will have refilled
]]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local requested = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local returned = tonumber(ARGV[5]) or 0

local state = redis.call('HMGET', KEYS[1], 'tokens', 'updatedAt')
local tokens = tonumber(state[1]) or burst
local updatedAt = tonumber(state[2]) or now

-- A caller whose clock lags another's must neither refill backwards nor twice.
if now > updatedAt then
  tokens = math.min(burst, tokens + (now - updatedAt) * rate / 1000)
  updatedAt = now
end
if returned > 0 then
  tokens = math.min(burst, tokens + returned)
end

local granted = math.min(requested, math.floor(tokens))
tokens = tokens - granted
local retryAfterMs = 0
if granted < requested then
  local wanted = math.min(requested - granted, burst)
  retryAfterMs = math.ceil((wanted - tokens) * 1000 / rate)
end

-- Numbers are passed as strings so that no precision is lost on the way.
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'updatedAt', string.format('%.17g', updatedAt))
-- A full bucket and a missing one behave alike, so the state may go once full.
-- The expiry runs on Redis's clock while refills run on the callers' times: a
-- minute's margin keeps a caller whose clock lags from finding a drained bucket
-- gone (and full again) before its own time says it has refilled.
redis.call('PEXPIRE', KEYS[1], math.max(60000, math.ceil((burst - tokens) * 1000 / rate)))
return {granted, retryAfterMs}
