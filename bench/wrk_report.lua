-- wrk script: counts non-2xx answers in every thread and prints one JSON line at the end
-- (latency percentiles in microseconds). Arguments after `--`: method, body (both optional).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
  if args[1] ~= nil and args[1] ~= "" then wrk.method = args[1] end
  if args[2] ~= nil and args[2] ~= "" then wrk.body = args[2] end
end

function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

function done(summary, latency, requests)
  local non = 0
  for _, thread in ipairs(threads) do non = non + thread:get("non2xx") end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "non2xx": %d, ' ..
    '"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d, ' ..
    '"p50_us": %.1f, "p95_us": %.1f, "p99_us": %.1f, "max_us": %.1f, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, non,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max, latency.mean))
end
