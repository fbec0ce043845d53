--[[
  SET NX by the caller's clock: a value whose stored expiry has passed at `now`
  counts as absent even while Redis still holds it, so TTLs follow the same
  time as every other coordination rule (see expiring-value.ts).

  Input:
    KEYS[1] the key
    ARGV[1] the encoded value, "<expiresAt>|<value>"
    ARGV[2] now, the caller's time in milliseconds
    ARGV[3] TTL in milliseconds, for Redis to drop the key
  Output:
    1 when the value was set, 0 when a live value was there
]]
local stored = redis.call('GET', KEYS[1])
if stored then
  local expiresAt = tonumber(string.match(stored, '^(%d+)|'))
  if expiresAt == nil or expiresAt > tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
