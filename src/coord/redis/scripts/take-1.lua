--[[
  Reads and removes a key in one step: GETDEL, also on servers before 6.2.

  Input:
    KEYS[1] the key
  Output:
    its value, or nil when it is absent
]]
local value = redis.call('GET', KEYS[1])
if value then
  redis.call('DEL', KEYS[1])
end
return value
