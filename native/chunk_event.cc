#include "chunk_event.h"

#include <sys/mman.h>

#include <atomic>
#include <new>

namespace sawt {

namespace {
constexpr size_t kMapThreshold = 64 * 1024;
std::atomic<uint64_t> gLiveChunks{0};
std::atomic<uint64_t> gLiveBytes{0};
}  // namespace

PcmInFlight PcmChunksInFlight() { return PcmInFlight{gLiveChunks.load(), gLiveBytes.load()}; }

PcmChunk::PcmChunk(size_t count) : count_(count) {
  const size_t bytes = count * sizeof(int16_t);
  if (bytes >= kMapThreshold) {
    void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<int16_t*>(pages);
  } else {
    data_ = new int16_t[count];
  }
  gLiveChunks.fetch_add(1, std::memory_order_relaxed);
  gLiveBytes.fetch_add(bytes, std::memory_order_relaxed);
}

PcmChunk::~PcmChunk() {
  gLiveChunks.fetch_sub(1, std::memory_order_relaxed);
  gLiveBytes.fetch_sub(count_ * sizeof(int16_t), std::memory_order_relaxed);
  if (count_ * sizeof(int16_t) >= kMapThreshold) {
    munmap(data_, count_ * sizeof(int16_t));
  } else {
    delete[] data_;
  }
}

void CallOnEvent(Napi::Env env, const Napi::Function& onEvent, ChunkMessage& message) {
  Napi::Object info = Napi::Object::New(env);
  info.Set("segment", message.segment);
  info.Set("final", message.final);
  info.Set("segmentEnd", message.segmentEnd || message.final);
  Napi::Array words = Napi::Array::New(env, message.words.size());
  for (size_t i = 0; i < message.words.size(); ++i) {
    Napi::Object word = Napi::Object::New(env);
    word.Set("textOffset", message.words[i].textOffset);
    word.Set("length", message.words[i].length);
    word.Set("audioMs", message.words[i].audioMs);
    words.Set(static_cast<uint32_t>(i), word);
  }
  info.Set("words", words);

  Napi::Value error = env.Null();
  Napi::Value chunk = env.Null();
  if (message.failed) error = MakeError(env, message.errorCode, message.errorMessage).Value();
  if (message.samples) {
    PcmChunk* samples = message.samples.release();
    info.Set("samples", static_cast<double>(samples->size()));
    // Zero-copy: the Buffer owns the chunk; its finalizer (main thread) frees it.
    chunk = Napi::Buffer<uint8_t>::New(
        env, reinterpret_cast<uint8_t*>(samples->data()), samples->size() * sizeof(int16_t),
        [](Napi::Env, uint8_t*, PcmChunk* owned) { delete owned; }, samples);
  } else {
    info.Set("samples", 0);
  }
  try {
    onEvent.Call({error, chunk, info});
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
}

}  // namespace sawt
