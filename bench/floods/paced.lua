-- A well-behaved client: one request, then a pause of a millisecond, then the next (about 900
-- requests a second on one connection), so that its latency is the data plane's and not its own
-- load's. wrk times each request from its write, so the pause is not in the figure.
function delay()
  return 1
end
