-- wrk's summary as one line of key=value (latencies in ms), read by bench/faults/stall.sh.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d errors=%d non2xx=%d p50=%.3f p90=%.3f p99=%.3f p999=%.3f max=%.3f\n",
    summary.requests, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000))
end
