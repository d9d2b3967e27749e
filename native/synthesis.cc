#include "synthesis.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "errors.h"
#include "espeak_engine.h"
#include "resampler.h"

namespace sawt {
namespace {

struct WordTiming {
  double textOffset;  // UTF-16 code units from the start of the segment text
  double length;      // UTF-16 code units
  double audioMs;     // from the start of the chunk
};

// One call of onEvent. Created on the synthesis thread, consumed on the main thread.
struct ChunkMessage {
  std::unique_ptr<std::vector<int16_t>> samples;  // null for the final event
  int segment = 0;
  bool segmentEnd = false;
  bool final = false;
  std::vector<WordTiming> words;
  bool failed = false;
  ErrorCode errorCode = ErrorCode::kEspeak;
  std::string errorMessage;
};

struct SynthesisOptions {
  std::vector<std::string> segments;
  espeak::SynthParams params;
  int sampleRate = 24000;
  int maxQueuedChunks = 4;
  int chunkMs = 0;
};

class SynthesisJob;
void DeliverEvent(Napi::Env env, Napi::Function onEvent, SynthesisJob* job, ChunkMessage* message);
using EventChannel = Napi::TypedThreadSafeFunction<SynthesisJob, ChunkMessage, DeliverEvent>;

// Maps code point indices of a UTF-8 string to UTF-16 offsets (JS string indices).
std::vector<uint32_t> Utf16Offsets(const std::string& text) {
  std::vector<uint32_t> offsets;
  offsets.reserve(text.size() + 1);
  uint32_t units = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const size_t bytes = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    offsets.push_back(units);
    units += bytes == 4 ? 2 : 1;
    i += bytes;
  }
  offsets.push_back(units);
  return offsets;
}

class SynthesisJob final : public espeak::SynthSink {
 public:
  explicit SynthesisJob(SynthesisOptions options)
      : options_(std::move(options)),
        resampler_(espeak::kSampleRate, options_.sampleRate),
        chunkSamples_(static_cast<size_t>(options_.chunkMs) * options_.sampleRate / 1000) {}

  // Main thread. `self` is this job; the channel and the thread keep it alive.
  static void Start(Napi::Env env, Napi::Function onEvent, const std::shared_ptr<SynthesisJob>& self) {
    self->channel_ = EventChannel::New(env, onEvent, "sawt.synthesis", 0, 1, self.get(),
                                       &SynthesisJob::OnChannelFinalized,
                                       new std::shared_ptr<SynthesisJob>(self));
    self->thread_ = std::thread([self] { self->Run(); });
  }

  // Any thread.
  void Pause() { Update([&] { paused_ = true; }); }
  void Resume() { Update([&] { paused_ = false; }); }
  void Cancel() { Update([&] { cancelled_ = true; }); }

  // Main thread: a queued chunk reached JS, which frees one unit of credit.
  void OnDelivered() { Update([&] { --queued_; }); }

 private:
  template <typename F>
  void Update(F change) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      change();
    }
    credit_.notify_all();
  }

  bool Cancelled() {
    std::lock_guard<std::mutex> guard(mutex_);
    return cancelled_;
  }

  // Main thread, after the thread released the channel (or at env teardown).
  static void OnChannelFinalized(Napi::Env, std::shared_ptr<SynthesisJob>* holder, SynthesisJob* job) {
    job->Cancel();  // no-op when finished; unblocks the thread at teardown
    if (job->thread_.joinable()) job->thread_.join();
    delete holder;
  }

  // Synthesis thread.
  void Run() {
    auto final = std::make_unique<ChunkMessage>();
    final->final = true;
    try {
      for (size_t i = 0; i < options_.segments.size(); ++i) {
        if (!WaitForCredit()) break;
        final->segment = static_cast<int>(i);
        SynthesizeSegment(static_cast<int>(i));
        while (!backlog_.empty() && SendWhenAllowed(std::move(backlog_.front()))) backlog_.pop_front();
        if (Cancelled()) break;
      }
      if (Cancelled()) {
        final->failed = true;
        final->errorCode = ErrorCode::kCancelled;
        final->errorMessage = "Synthesis was cancelled";
      }
    } catch (const EngineFailure& failure) {
      final->failed = true;
      final->errorCode = failure.code();
      final->errorMessage = failure.what();
    } catch (const std::exception& e) {
      final->failed = true;
      final->errorMessage = std::string("Synthesis failed: ") + e.what();
    }
    backlog_.clear();
    if (channel_.NonBlockingCall(final.get()) == napi_ok) final.release();
    channel_.Release();
  }

  void SynthesizeSegment(int index) {
    const std::string& text = options_.segments[index];
    segment_ = index;
    segmentOutput_ = 0;
    ready_.clear();
    words_.clear();
    utf16Offsets_ = Utf16Offsets(text);
    if (!espeak::SynthesizeSegment(options_.params, text, *this)) return;  // cancelled
    resampler_.Flush(ready_);
    if (!ready_.empty()) CutChunk(ready_.size(), true);
  }

  // Synthesis thread, espeak lock held: must not wait for credit here.
  bool OnAudio(const int16_t* samples, size_t count, const std::vector<espeak::WordEvent>& words) override {
    if (Cancelled()) return false;
    words_.insert(words_.end(), words.begin(), words.end());
    resampler_.Process(samples, count, ready_);
    if (chunkSamples_ > 0) {
      while (ready_.size() >= chunkSamples_) CutChunk(chunkSamples_, false);
    }
    return true;
  }

  // Turns the first `count` ready samples into a chunk and sends or keeps it.
  void CutChunk(size_t count, bool segmentEnd) {
    auto message = std::make_unique<ChunkMessage>();
    message->segment = segment_;
    message->segmentEnd = segmentEnd;
    if (count == ready_.size()) {
      message->samples = std::make_unique<std::vector<int16_t>>(std::move(ready_));
      ready_.clear();
    } else {
      message->samples = std::make_unique<std::vector<int16_t>>(ready_.begin(), ready_.begin() + count);
      ready_.erase(ready_.begin(), ready_.begin() + count);
    }
    const double rate = options_.sampleRate;
    const double startMs = segmentOutput_ * 1000.0 / rate;
    const double endMs = (segmentOutput_ + count) * 1000.0 / rate;
    segmentOutput_ += count;
    const auto last = static_cast<int>(utf16Offsets_.size()) - 1;
    size_t taken = 0;
    for (; taken < words_.size() && (segmentEnd || words_[taken].audioMs < endMs); ++taken) {
      const espeak::WordEvent& w = words_[taken];
      const int begin = std::clamp(w.textPosition - 1, 0, last);  // espeak counts from 1
      const int end = std::clamp(begin + w.length, begin, last);
      message->words.push_back(WordTiming{static_cast<double>(utf16Offsets_[begin]),
                                          static_cast<double>(utf16Offsets_[end] - utf16Offsets_[begin]),
                                          std::max(0.0, w.audioMs - startMs)});
    }
    words_.erase(words_.begin(), words_.begin() + taken);
    if (!backlog_.empty() || !TrySend(message)) backlog_.push_back(std::move(message));
  }

  bool HasCredit() const { return !paused_ && queued_ < options_.maxQueuedChunks; }

  // Sends when there is credit now; returns false (message kept) otherwise.
  bool TrySend(std::unique_ptr<ChunkMessage>& message) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (cancelled_) return true;  // dropped
      if (!HasCredit()) return false;
      ++queued_;
    }
    Dispatch(std::move(message));
    return true;
  }

  // Waits for credit (or cancellation, then returns false).
  bool WaitForCredit() {
    std::unique_lock<std::mutex> guard(mutex_);
    credit_.wait(guard, [&] { return cancelled_ || HasCredit(); });
    return !cancelled_;
  }

  bool SendWhenAllowed(std::unique_ptr<ChunkMessage> message) {
    {
      std::unique_lock<std::mutex> guard(mutex_);
      credit_.wait(guard, [&] { return cancelled_ || HasCredit(); });
      if (cancelled_) return false;
      ++queued_;
    }
    Dispatch(std::move(message));
    return true;
  }

  void Dispatch(std::unique_ptr<ChunkMessage> message) {
    if (channel_.NonBlockingCall(message.get()) == napi_ok) {
      message.release();
    } else {  // the environment is shutting down
      Update([&] { --queued_; cancelled_ = true; });
    }
  }

  const SynthesisOptions options_;
  Resampler resampler_;
  const size_t chunkSamples_;  // 0: one chunk per segment
  EventChannel channel_;
  std::thread thread_;

  std::mutex mutex_;  // guards the three fields below
  std::condition_variable credit_;
  bool paused_ = false;
  bool cancelled_ = false;
  int queued_ = 0;  // chunks in the channel not yet handed to JS

  // Synthesis thread only.
  int segment_ = 0;
  size_t segmentOutput_ = 0;  // samples of this segment already cut into chunks
  std::vector<int16_t> ready_;
  std::vector<espeak::WordEvent> words_;
  std::vector<uint32_t> utf16Offsets_;
  std::deque<std::unique_ptr<ChunkMessage>> backlog_;  // ready, waiting for credit

  friend void DeliverEvent(Napi::Env, Napi::Function, SynthesisJob*, ChunkMessage*);
};

// Main thread.
void DeliverEvent(Napi::Env env, Napi::Function onEvent, SynthesisJob* job, ChunkMessage* raw) {
  std::unique_ptr<ChunkMessage> message(raw);
  // Torn down with the environment: the finalizer may already have freed `job`.
  if (env == nullptr) return;
  if (message->samples) job->OnDelivered();

  Napi::Object info = Napi::Object::New(env);
  info.Set("segment", message->segment);
  info.Set("final", message->final);
  info.Set("segmentEnd", message->segmentEnd || message->final);
  Napi::Array words = Napi::Array::New(env, message->words.size());
  for (size_t i = 0; i < message->words.size(); ++i) {
    Napi::Object word = Napi::Object::New(env);
    word.Set("textOffset", message->words[i].textOffset);
    word.Set("length", message->words[i].length);
    word.Set("audioMs", message->words[i].audioMs);
    words.Set(static_cast<uint32_t>(i), word);
  }
  info.Set("words", words);

  Napi::Value error = env.Null();
  Napi::Value chunk = env.Null();
  if (message->failed) {
    error = MakeError(env, message->errorCode, message->errorMessage).Value();
  }
  if (message->samples) {
    std::vector<int16_t>* samples = message->samples.release();
    info.Set("samples", static_cast<double>(samples->size()));
    // Zero-copy: the Buffer owns the vector; its finalizer (main thread) frees it.
    chunk = Napi::Buffer<uint8_t>::New(
        env, reinterpret_cast<uint8_t*>(samples->data()), samples->size() * sizeof(int16_t),
        [](Napi::Env, uint8_t*, std::vector<int16_t>* owned) { delete owned; }, samples);
  } else {
    info.Set("samples", 0);
  }
  try {
    onEvent.Call({error, chunk, info});
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();  // surfaces as an uncaught exception
  }
}

// --- argument parsing (main thread) ---

Napi::Value Field(const Napi::Object& options, const char* name) { return options.Get(name); }

int IntegerField(Napi::Env env, const Napi::Object& options, const char* name, int min, int max,
                 const int* fallback) {
  Napi::Value value = Field(options, name);
  if (value.IsUndefined() && fallback != nullptr) return *fallback;
  if (!value.IsNumber()) {
    ThrowInvalidArgument(env, std::string("Expected a number between ") + std::to_string(min) +
                                  " and " + std::to_string(max) + " for " + name);
  }
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= min && number <= max)) {
    ThrowInvalidArgument(env, std::string("Expected a number between ") + std::to_string(min) +
                                  " and " + std::to_string(max) + " for " + name +
                                  " but received " + value.ToString().Utf8Value());
  }
  return static_cast<int>(number);
}

SynthesisOptions ParseOptions(Napi::Env env, const Napi::Value& value) {
  if (!value.IsObject()) ThrowInvalidArgument(env, "Expected an object for options");
  const Napi::Object options = value.As<Napi::Object>();
  SynthesisOptions parsed;

  const Napi::Value segments = Field(options, "segments");
  if (!segments.IsArray() || segments.As<Napi::Array>().Length() == 0) {
    ThrowInvalidArgument(env, "Expected a non-empty array of strings for segments");
  }
  const Napi::Array array = segments.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const Napi::Value segment = array.Get(i);
    if (!segment.IsString()) {
      ThrowInvalidArgument(env, "Expected a string for segments[" + std::to_string(i) + "]");
    }
    parsed.segments.push_back(segment.As<Napi::String>().Utf8Value());
  }

  const Napi::Value voice = Field(options, "voice");
  if (!voice.IsString() || voice.As<Napi::String>().Utf8Value().empty()) {
    ThrowInvalidArgument(env, "Expected a non-empty string for voice");
  }
  parsed.params.voice = voice.As<Napi::String>().Utf8Value();
  parsed.params.rate = IntegerField(env, options, "rate", 80, 450, nullptr);
  parsed.params.pitch = IntegerField(env, options, "pitch", 0, 100, nullptr);
  parsed.params.range = IntegerField(env, options, "range", 0, 100, nullptr);
  parsed.sampleRate = IntegerField(env, options, "sampleRate", 8000, 48000, nullptr);
  const int defaultQueue = 4, defaultChunkMs = 0;
  parsed.maxQueuedChunks = IntegerField(env, options, "maxQueuedChunks", 1, 1024, &defaultQueue);
  parsed.chunkMs = IntegerField(env, options, "chunkMs", 0, 60000, &defaultChunkMs);
  const Napi::Value phonemeInput = Field(options, "phonemeInput");
  if (!phonemeInput.IsUndefined() && !phonemeInput.IsBoolean()) {
    ThrowInvalidArgument(env, "Expected a boolean for phonemeInput");
  }
  parsed.params.phonemeInput = phonemeInput.IsBoolean() && phonemeInput.As<Napi::Boolean>().Value();
  return parsed;
}

}  // namespace

Napi::Value CreateSynthesis(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SynthesisOptions options = ParseOptions(env, info[0]);
  if (!info[1].IsFunction()) ThrowInvalidArgument(env, "Expected a function for onEvent");

  auto job = std::make_shared<SynthesisJob>(std::move(options));
  SynthesisJob::Start(env, info[1].As<Napi::Function>(), job);

  // Each method keeps the job alive for as long as JS holds it.
  Napi::Object handle = Napi::Object::New(env);
  handle.Set("pause", Napi::Function::New(env, [job](const Napi::CallbackInfo&) { job->Pause(); }, "pause"));
  handle.Set("resume", Napi::Function::New(env, [job](const Napi::CallbackInfo&) { job->Resume(); }, "resume"));
  handle.Set("cancel", Napi::Function::New(env, [job](const Napi::CallbackInfo&) { job->Cancel(); }, "cancel"));
  return handle;
}

}  // namespace sawt
