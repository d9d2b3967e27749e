// One audio event of a streaming synthesis job (espeak or HTS): made on a pool
// thread, kept in the job's outbox (ChunkStream) until the EventPump hands it to
// the JavaScript thread, and turned there into onEvent(error, chunk, info), the
// chunk a zero-copy Buffer.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "errors.h"

namespace sawt {

// PCM of one chunk. Large chunks are mapped pages of their own: they are made on
// a synthesis thread and freed on the main thread, a pattern that makes glibc's
// per-thread arenas (and the process's RSS) grow; munmap returns them to the
// system at once.
class PcmChunk {
 public:
  explicit PcmChunk(size_t count);
  ~PcmChunk();
  PcmChunk(const PcmChunk&) = delete;
  PcmChunk& operator=(const PcmChunk&) = delete;

  int16_t* data() { return data_; }
  size_t size() const { return count_; }

 private:
  int16_t* data_;
  size_t count_;
};

// PcmChunks alive in the process (made and not yet freed): after the garbage collector has run,
// anything left here is audio that JavaScript still holds, or a leak.
struct PcmInFlight {
  uint64_t chunks;
  uint64_t bytes;
};
PcmInFlight PcmChunksInFlight();

struct WordTiming {
  double textOffset;  // UTF-16 code units from the start of the segment text
  double length;  // UTF-16 code units
  double audioMs;  // from the start of the chunk
};

// One call of onEvent. Created on a pool thread and owned by the job's outbox
// until the JavaScript thread takes it; its samples then pass to the Buffer.
struct ChunkMessage {
  std::unique_ptr<PcmChunk> samples;  // null for the final event
  int segment = 0;
  bool segmentEnd = false;
  bool final = false;
  std::vector<WordTiming> words;
  bool failed = false;
  ErrorCode errorCode = ErrorCode::kEspeak;
  std::string errorMessage;
};

// Main thread: onEvent(error, chunk, info) for `message`; the chunk's samples pass
// to the Buffer (its finalizer frees them). A throw in onEvent surfaces as an
// uncaught exception.
void CallOnEvent(Napi::Env env, const Napi::Function& onEvent, ChunkMessage& message);

}  // namespace sawt
