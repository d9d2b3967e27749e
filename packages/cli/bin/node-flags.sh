# The options `sawt` starts Node with (printed on one line; bench/harness.js starts its server with them too).
# Up to 4 cores: --single-threaded-gc, V8 collecting garbage on the JavaScript thread alone. Its
# helper threads run at normal priority: on 2 cores busy with synthesis they took cores from the
# JavaScript thread, which then waited for them inside every pause (measured with 30 WebSocket
# sessions on 2 cores: the event loop's worst delay 31–64 ms with them, 16–20 ms without). On more
# cores they find idle ones and shorten the pauses. V8 reads it at start only (set later, it crashed).
[ "$(nproc 2>/dev/null || echo 1)" -gt 4 ] || echo --single-threaded-gc
