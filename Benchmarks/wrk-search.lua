-- wrk script: GET a search path around random centres read from CENTRES (a file of "lat lon" lines).
-- Environment: TOKEN (bearer token), CENTRES (file), SEARCH_PATH (e.g. /v1/events/nearby?radius_km=5&limit=50).
local centres = {}
local index = 0
function init(args)
  for line in io.lines(os.getenv("CENTRES")) do
    local lat, lon = line:match("([^ ]+) ([^ ]+)")
    table.insert(centres, {lat, lon})
  end
  index = math.random(#centres)
end
function request()
  index = index % #centres + 1
  local c = centres[index]
  local path = os.getenv("SEARCH_PATH") .. "&lat=" .. c[1] .. "&lon=" .. c[2]
  return wrk.format("GET", path, {["Authorization"] = "Bearer " .. os.getenv("TOKEN")})
end
function done(summary, latency, requests)
  io.write(string.format("errors: %d non-2xx/3xx or socket errors\n", summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
