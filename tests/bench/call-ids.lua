-- wrk script: catalog.search calls with request ids PREFIX-1, PREFIX-2, …
-- (`wrk … -s tests/bench/call-ids.lua URL -- PREFIX`). Two wrk runs with
-- different prefixes send distinct calls; with the same prefix they send
-- each request id to both servers (duplicates across processes). Use -t1:
-- the counter is per thread.
local prefix = "bench"
local n = 0
init = function(args)
  if args[1] then prefix = args[1] end
end
request = function()
  n = n + 1
  local body = string.format(
    '{"type":"portos_tool_call","requestId":"%s-%d","name":"catalog.search","arguments":{"query":"berths","limit":5}}',
    prefix, n)
  return wrk.format("POST", "/api/cos/tools/call", {["Content-Type"] = "application/json"}, body)
end
