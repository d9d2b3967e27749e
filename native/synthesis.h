// Streaming espeak-ng synthesis on a native thread.
//
// createSynthesis(options, onEvent) starts one SynthesisJob. One process-wide
// synthesis thread (not libuv's pool) runs every job, one segment per turn in
// FIFO order, so concurrent syntheses interleave fairly; each turn holds the
// espeak lock for one segment, resamples its 22050 Hz audio to the asked rate
// and hands PCM16 chunks to JavaScript through a thread-safe function.
//
// Memory and threads:
// - A chunk's samples are allocated on the synthesis thread and handed to JS
//   as an external Buffer (no copy); the Buffer's finalizer frees them on the
//   main thread when the Buffer is collected.
// - Credit: at most `maxQueuedChunks` chunks wait in the thread-safe
//   function's queue. While JS has paused the job, or the queue is full, the
//   job is parked (it holds no thread) before its next segment and wakes when
//   JS reads or resumes. Chunks that become ready inside espeak's callback
//   without credit wait in the job (at most one segment's worth).
// - The job owns itself: the thread-safe function's finalize data and the
//   scheduler's queue hold shared_ptrs, so dropping the JS handle neither stops
//   nor leaks it. At environment teardown the job is cancelled and stops using
//   the thread-safe function.
#pragma once

#include <napi.h>

namespace sawt {

// JS: createSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
Napi::Value CreateSynthesis(const Napi::CallbackInfo& info);

}  // namespace sawt
