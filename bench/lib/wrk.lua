-- The request for `npm run bench -- --loader wrk` (bench/lib/load-wrk.js): method, headers and body come from
-- files named in the environment (a 100 KB body is too long for an argument or a variable), and
-- the summary leaves as one JSON line with exact percentiles (wrk keeps microseconds).
local function read(path)
  local file = assert(io.open(path, "rb"))
  local text = file:read("*all")
  file:close()
  return text
end

wrk.method = os.getenv("WRK_METHOD")
local body = read(os.getenv("WRK_BODY_FILE"))
if body ~= "" then wrk.body = body end
for line in read(os.getenv("WRK_HEADERS_FILE")):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  wrk.headers[name] = value
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50":%d,"p90":%d,"p99":%d,"max":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
