-- wrk: each request is the next `TOKEN PATH` line of REQUESTS, round and round.
local lines = {}
for line in io.lines(os.getenv("REQUESTS")) do
  local token, path = line:match("^(%S+) (%S+)$")
  if token then lines[#lines + 1] = { token, path } end
end
local i = 0
function setup(thread) thread:set("offset", math.random(#lines)) end
function request()
  i = i + 1
  local entry = lines[((i + (offset or 0)) % #lines) + 1]
  return wrk.format("GET", entry[2], { ["Authorization"] = "Bearer " .. entry[1] })
end
