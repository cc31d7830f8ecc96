-- wrk script: counts failed answers in every thread and prints one JSON line at the end
-- (latency percentiles in microseconds). Arguments after `--`, either
--   METHOD BODY                 (both optional) one request, the same each time; or
--   flow NAME SESSIONS_FILE     a POST flow (bench/flows.py): one wrk thread a connection, each
--                               a signed-in user: a line of the sessions file, cookie TAB
--                               csrf-token TAB product-id.
-- The flows: "stock_post", staff adjustments (+1, a new idempotency key each, and the level the
-- last answer showed) with HTMX, as the stock page sends them; "checkout", add 1 to the cart (HTMX),
-- hold at the checkout page (which issues the order ID and key), then place the order, in turn. "non2xx" counts failures: a non-2xx answer, except that a checkout
-- must be sent on to its order page (a 302 there, not back to the cart).
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

local function hex(n)
  local t = {}
  for i = 1, n do t[i] = string.format("%x", math.random(0, 15)) end
  return table.concat(t)
end

function init(args)
  non2xx = 0
  if args[1] == "flow" then
    flow = args[2]
    local n = 0
    for line in io.lines(args[3]) do
      n = n + 1
      if n == id then cookie, csrf, product = line:match("([^\t]*)\t([^\t]*)\t([^\t]*)") end
    end
    if product == nil then error("no session for connection " .. id) end
    math.randomseed(os.time() * 1000 + id)
    carted, issued = false, nil
    return
  end
  if args[1] ~= nil and args[1] ~= "" then wrk.method = args[1] end
  if args[2] ~= nil and args[2] ~= "" then wrk.body = args[2] end
  fixed = wrk.format()
end

function request()
  if not flow then return fixed end
  local headers = {
    ["Cookie"] = cookie,
    ["X-CSRFToken"] = csrf,
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["HX-Request"] = "true",
  }
  if flow == "stock_post" then
    last = "stock"
    -- The level the last answer showed goes back with the form, as the page's form sends it.
    return wrk.format("POST", "/staff/products/" .. product .. "/stock/", headers,
      "action=increase&quantity=1&reason=received&token=" .. hex(32) .. "&seen_level=" .. (seen_level or ""))
  end
  -- Place the order only once this run has seen the cart take the product: wrk may build a
  -- request it never sends, so strict alternation could check out an empty cart.
  if not carted then
    last = "add"
    return wrk.format("POST", "/cart/add/", headers, "product_id=" .. product .. "&quantity=1")
  end
  headers["HX-Request"] = nil
  -- The checkout page, holding the cart's units as its button asks (POST action=hold; with holds off it
  -- only shows the page), issues the order ID and key (kept in the session); the form sends them back.
  if not issued then
    last = "form"
    return wrk.format("POST", "/checkout/", headers, "action=hold")
  end
  last = "checkout"
  local order_id, token = issued[1], issued[2]
  return wrk.format("POST", "/checkout/", headers, "order_id=" .. order_id .. "&token=" .. token
    .. "&name=Bench+Buyer&street=Benchstr.+1&postcode=10115&city=Berlin&country=DE")
end

function response(status, headers, body)
  if last == "stock" then seen_level = body:match('name="seen_level" value="(%d+)"') end
  if last == "add" then carted = (status == 200) end
  if last == "form" then
    local order_id = body:match('name="order_id" value="([^"]+)"')
    local token = body:match('name="token" value="([^"]+)"')
    if status == 200 and order_id and token then issued = {order_id, token} else non2xx = non2xx + 1 end
    return
  end
  if last == "checkout" then
    carted = false
    issued = nil
    local location = headers["Location"] or ""
    if status ~= 302 or not location:find("/account/orders/", 1, true) then non2xx = non2xx + 1 end
  elseif status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
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
