-- wrk script: one request, the same each time (arguments after `--`: METHOD BODY, both optional),
-- non-2xx answers counted in every thread, and at the end one line "BENCH_JSON {...}" (latency
-- percentiles in microseconds) for bench/load.py.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
  if args[1] ~= nil and args[1] ~= "" then wrk.method = args[1] end
  if args[2] ~= nil and args[2] ~= "" then wrk.body = args[2] end
  fixed = wrk.format()
end

function request()
  return fixed
end

function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

function done(summary, latency, requests)
  local non = 0
  for _, thread in ipairs(threads) do non = non + thread:get("non2xx") end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "non2xx": %d, "connect": %d, "read": %d, "write": %d, ' ..
    '"timeout": %d, "p50_us": %.1f, "p95_us": %.1f, "p99_us": %.1f, "max_us": %.1f}\n',
    summary.requests, summary.duration, non, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
