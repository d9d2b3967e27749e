// Streaming espeak-ng synthesis on a native thread.
//
// createSynthesis(options, onEvent) starts one SynthesisJob: a dedicated
// std::thread synthesizes the segments one by one (holding the process-wide
// espeak lock for one segment at a time), resamples 22050 Hz audio to the asked
// rate and hands PCM16 chunks to JavaScript through a thread-safe function.
//
// Memory and threads:
// - A chunk's samples are allocated on the synthesis thread and handed to JS
//   as an external Buffer (no copy); the Buffer's finalizer frees them on the
//   main thread when the Buffer is collected.
// - At most `maxQueuedChunks` chunks wait in the thread-safe function's queue.
//   While JS has paused the job, or the queue is full, the thread waits on a
//   condition variable between chunks and segments. It never waits while
//   holding the espeak lock: chunks that become ready inside espeak's callback
//   and cannot be queued are kept (at most one segment's worth) until credit
//   returns.
// - The job owns itself: the thread and the thread-safe function each hold a
//   shared_ptr, so dropping the JS handle neither stops nor leaks it. The
//   thread-safe function's finalizer (main thread) joins the thread; at
//   environment teardown it cancels the job first.
#pragma once

#include <napi.h>

namespace sawt {

// JS: createSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
Napi::Value CreateSynthesis(const Napi::CallbackInfo& info);

}  // namespace sawt
