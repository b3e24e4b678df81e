-- wrk script: catalog.search calls, each with a fresh requestId (every call
-- is claimed, executed and recorded with its audit row).
local n = 0
request = function()
  n = n + 1
  local body = string.format(
    '{"type":"portos_tool_call","requestId":"bench-%d-%d","name":"catalog.search","arguments":{"query":"berths","limit":5}}',
    math.random(1, 1000000000), n)
  return wrk.format("POST", "/api/cos/tools/call", {["Content-Type"] = "application/json"}, body)
end
