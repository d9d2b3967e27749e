// Streaming espeak-ng synthesis, one segment (sentence) per turn, on the process's espeak pool
// (pools::EspeakSynthesis): a turn holds an instance's lock for one segment, resamples its 22050 Hz
// audio and sends PCM16 chunks through ChunkStream. Memory and threads:
// - A chunk's samples (PcmChunk, chunk_event.h) are made on a pool thread and handed to JS as an
//   external Buffer (no copy); its finalizer frees them on the JavaScript thread once collected.
// - A job parked for credit holds no thread; chunks made inside espeak's callback without credit
//   wait in the job (at most one segment's worth).
// - The job owns itself: the pool's queued turn and the pump (until the final event) hold
//   shared_ptrs, so dropping the JS handle neither stops nor leaks it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "chunk_stream.h"
#include "espeak_engine.h"

namespace sawt {

// Checked in TypeScript (native/lib/validate.ts) before they reach the addon.
struct SynthesisOptions {
  std::vector<std::string> segments;
  espeak::SynthParams params;
  int sampleRate = 24000;
  int maxQueuedChunks = 4;
  int chunkMs = 0;  // 0: one chunk per segment
  bool urgent = true;  // the first segment goes ahead of other jobs' later segments
};

// A streaming job over `options` (its events are opened by ChunkStream::Start).
std::shared_ptr<ChunkStream> MakeSynthesisJob(SynthesisOptions options);

}  // namespace sawt
