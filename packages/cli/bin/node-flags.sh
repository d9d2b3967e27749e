# The options `sawt` starts Node with (printed on one line; bench/harness.js starts its server with them too).
# --no-memory-reducer: V8's memory reducer, once allocation slows (requests one after another),
# collects the whole heap to give memory back and compacts all of it in one pause: 15-23 ms on a
# 40 MB heap, in 3 of 17 runs of bench/latency.js's HTTP figures (0 of 7 without it; other
# full collections took at most 6 ms). A server keeps the heap it grew to instead.
# Up to 4 cores: --single-threaded-gc, V8 collecting garbage on the JavaScript thread alone. Its
# helper threads run at normal priority: on 2 cores busy with synthesis they took cores from the
# JavaScript thread, which then waited for them inside every pause (measured with 30 WebSocket
# sessions on 2 cores: the event loop's worst delay 31–64 ms with them, 16–20 ms without). On more
# cores they find idle ones and shorten the pauses. V8 reads it at start only (set later, it crashed).
flags=--no-memory-reducer
[ "$(nproc 2>/dev/null || echo 1)" -gt 4 ] || flags="$flags --single-threaded-gc"
echo "$flags"
