#include "synthesis.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "args.h"
#include "chunk_stream.h"
#include "errors.h"
#include "espeak_engine.h"
#include "idle_priority.h"
#include "resampler.h"

namespace sawt {
namespace {

struct SynthesisOptions {
  std::vector<std::string> segments;
  espeak::SynthParams params;
  int sampleRate = 24000;
  int maxQueuedChunks = 4;
  int chunkMs = 0;
  bool urgent = true;  // the first segment goes ahead of other jobs' later segments
};

class SynthesisJob;

// Maps code point indices of a UTF-8 string to UTF-16 offsets (JS string indices).
std::vector<uint32_t> Utf16Offsets(const std::string& text) {
  std::vector<uint32_t> offsets;
  offsets.reserve(text.size() + 1);
  uint32_t units = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const size_t bytes = lead < 0x80 ? 1 : lead < 0xE0 ? 2
                                       : lead < 0xF0   ? 3
                                                       : 4;
    offsets.push_back(units);
    units += bytes == 4 ? 2 : 1;
    i += bytes;
  }
  offsets.push_back(units);
  return offsets;
}

// How long a later segment waits for the first segments queued or in progress before it takes an
// instance's lock anyway. A later segment holds the lock for the whole segment (tens of ms on a busy
// core), so a first segment that queued behind it would wait that long for its first audio; the
// audio before a later segment (its job's earlier segments, a word at least: ~300 ms) lasts far
// longer than this wait. Bounded, so that a steady stream of new requests cannot starve them.
constexpr auto kLaterYield = std::chrono::milliseconds(50);

// The threads that synthesize for every job of the process: two per espeak-ng
// instance (espeak runs one call at a time per instance, so more threads would
// add no throughput; a thread per job also made RSS creep up, each new thread
// drawing on another glibc arena). Jobs take turns one segment at a time, in FIFO
// order, a job's first segment ahead of later ones; a job without credit is
// parked, holding no thread, until JS reads or resumes.
class SynthesisScheduler {
 public:
  static SynthesisScheduler& Instance() {
    static auto* instance = new SynthesisScheduler();  // lives as long as the process
    return *instance;
  }

  // `first`: the job's first (urgent) segment; such turns go ahead of later segments of other jobs.
  void Enqueue(std::shared_ptr<SynthesisJob> job, bool first) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      (first ? first_ : ready_).push_back(std::move(job));
      if (first) ++firstPending_;
    }
    (first ? firstWake_ : readyWake_).notify_one();
  }

  // A later segment's thread, before it takes an instance: waits (at most kLaterYield) until no
  // first segment is queued or being synthesized.
  void YieldToFirstSegments() {
    const idle_priority::HoldingSharedLocks holding;  // the scheduler's lock (Enqueue takes it on the main thread)
    std::unique_lock<std::mutex> guard(mutex_);
    firstDone_.wait_for(guard, kLaterYield, [&] { return firstPending_ == 0; });
  }

 private:
  // Per instance, a thread for first segments and one for later ones; they take turns on the
  // instance's lock, so a first segment waits for at most the segment in progress there.
  SynthesisScheduler() {
    for (int i = 0; i < espeak::Instances(); ++i) {
      std::thread([this, i] { Loop(i, true); }).detach();
      std::thread([this, i] { Loop(i, false); }).detach();
    }
  }
  void Loop(int instance, bool first);

  std::mutex mutex_;
  std::condition_variable firstWake_, readyWake_, firstDone_;
  std::deque<std::shared_ptr<SynthesisJob>> first_;  // jobs whose urgent first segment is next
  std::deque<std::shared_ptr<SynthesisJob>> ready_;
  size_t firstPending_ = 0;  // first segments queued or being synthesized
};

class SynthesisJob final : public espeak::SynthSink,
                           public ChunkStream,
                           public std::enable_shared_from_this<SynthesisJob> {
 public:
  explicit SynthesisJob(SynthesisOptions options)
      : ChunkStream(options.maxQueuedChunks, ErrorCode::kEspeak),
        options_(std::move(options)),
        chunkSamples_(static_cast<size_t>(options_.chunkMs) * options_.sampleRate / 1000) {}

  // Main thread. The pump holds a reference until the final event is delivered;
  // the scheduler holds one while the job is queued.
  static void Start(Napi::Env env, Napi::Function onEvent, const std::shared_ptr<SynthesisJob>& self) {
    OpenEvents(env, onEvent, self);
    SynthesisScheduler::Instance().Enqueue(self, self->FirstPending());
  }

  // Scheduler thread: one turn — send what waits, then synthesize one segment on `instance`; on a
  // later segments' thread (not `first`), once no first segment waits for an instance.
  void Step(int instance, bool first) {
    RunTurn("Synthesis failed: ", [&] {
      if (nextSegment_ == options_.segments.size()) return false;
      if (!first) SynthesisScheduler::Instance().YieldToFirstSegments();
      SynthesizeSegment(nextSegment_++, instance);
      return true;
    });
  }

 private:
  void QueueTurn() override { SynthesisScheduler::Instance().Enqueue(shared_from_this(), FirstPending()); }
  // Read by the scheduler thread, or on the main thread before the job is queued.
  bool FirstPending() const { return options_.urgent && nextSegment_ == 0; }

  void SynthesizeSegment(size_t index, int instance) {
    const std::string& text = options_.segments[index];
    segment_ = static_cast<int>(index);
    segmentOutput_ = 0;
    ready_.clear();
    words_.clear();
    utf16Offsets_ = Utf16Offsets(text);
    // Made here, on the scheduler thread and outside espeak's lock: the resampler designs its filter
    // when made (~0.5 ms of CPU), which on the main thread was paid by every synthesizeStream() call.
    if (!resampler_) resampler_ = std::make_unique<Resampler>(espeak::kSampleRate, options_.sampleRate);
    if (!espeak::SynthesizeSegment(options_.params, text, *this, instance)) return;  // cancelled
    resampler_->Flush(ready_);
    if (!ready_.empty()) CutChunk(ready_.size(), true);
  }

  // espeak lock held: chunks go out at once when credit allows, else wait in
  // the backlog (never block here: other jobs wait for the lock).
  bool OnAudio(const int16_t* samples, size_t count, const std::vector<espeak::WordEvent>& words) override {
    if (Cancelled()) return false;
    words_.insert(words_.end(), words.begin(), words.end());
    resampler_->Process(samples, count, ready_);
    if (chunkSamples_ > 0) {
      while (ready_.size() >= chunkSamples_) CutChunk(chunkSamples_, false);
    }
    return true;
  }

  // Turns the first `count` ready samples into a chunk and sends or keeps it.
  void CutChunk(size_t count, bool segmentEnd) {
    std::unique_ptr<ChunkMessage> message = TakeChunk(ready_, count, segmentEnd);
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
    Send(std::move(message));
  }

  const SynthesisOptions options_;
  std::unique_ptr<Resampler> resampler_;  // scheduler thread only, made at the first segment
  const size_t chunkSamples_;  // 0: one chunk per segment

  // Scheduler thread only.
  size_t nextSegment_ = 0;
  size_t segmentOutput_ = 0;  // samples of this segment already cut into chunks
  std::vector<int16_t> ready_;
  std::vector<espeak::WordEvent> words_;
  std::vector<uint32_t> utf16Offsets_;
};

void SynthesisScheduler::Loop(int instance, bool first) {
  // Synthesis yields to the JavaScript thread when cores are busy: a nice value on this thread
  // alone (Linux applies PRIO_PROCESS with a thread id per thread) keeps event-loop delay low while
  // audio is still produced far above real time. Later segments (audio already far ahead of
  // playback) run lower still: SCHED_IDLE where the process may (idle_priority.h), else nice 12.
  // On busy cores they leave the JavaScript thread and the first audio of other requests their
  // share; on idle cores neither changes anything.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), first ? 5 : 12);
  if (!first) idle_priority::EnterIdle();
  auto& queue = first ? first_ : ready_;
  auto& wake = first ? firstWake_ : readyWake_;
  for (;;) {
    std::shared_ptr<SynthesisJob> job;
    {
      const idle_priority::HoldingSharedLocks holding;  // the scheduler's lock (Enqueue takes it on the main thread)
      std::unique_lock<std::mutex> guard(mutex_);
      wake.wait(guard, [&] { return !queue.empty(); });
      job = std::move(queue.front());
      queue.pop_front();
    }
    job->Step(instance, first);
    if (first) {
      bool none;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        none = --firstPending_ == 0;
      }
      if (none) firstDone_.notify_all();
    }
  }
}

// --- argument parsing (main thread) ---

SynthesisOptions ParseOptions(Napi::Env env, const Napi::Value& value) {
  const Napi::Object options = args::Object(env, value, "options");
  SynthesisOptions parsed;

  const Napi::Value segments = options.Get("segments");
  if (!segments.IsArray() || segments.As<Napi::Array>().Length() == 0) {
    ThrowInvalidArgument(env, "Expected a non-empty array of strings for segments");
  }
  const Napi::Array array = segments.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); ++i) {
    parsed.segments.push_back(args::String(env, array.Get(i), "segments[" + std::to_string(i) + "]"));
  }

  parsed.params.voice = args::String(env, options.Get("voice"), "voice", true);
  parsed.params.rate = static_cast<int>(args::Integer(env, options.Get("rate"), "rate", espeak::kMinRate, espeak::kMaxRate));
  parsed.params.pitch = static_cast<int>(args::Integer(env, options.Get("pitch"), "pitch", 0, 100));
  parsed.params.range = static_cast<int>(args::Integer(env, options.Get("range"), "range", 0, 100));
  parsed.sampleRate = static_cast<int>(args::Integer(env, options.Get("sampleRate"), "sampleRate", 8000, 48000));
  parsed.maxQueuedChunks = static_cast<int>(args::IntegerField(env, options, "maxQueuedChunks", 1, 1024, 4));
  parsed.chunkMs = static_cast<int>(args::IntegerField(env, options, "chunkMs", 0, 60000, 0));
  parsed.params.phonemeInput = args::BooleanField(env, options, "phonemeInput", false);
  parsed.urgent = args::BooleanField(env, options, "urgent", true);
  return parsed;
}

}  // namespace

Napi::Value CreateSynthesis(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SynthesisOptions options = ParseOptions(env, info[0]);
  const Napi::Function onEvent = args::Function(env, info[1], "onEvent");
  auto job = std::make_shared<SynthesisJob>(std::move(options));
  SynthesisJob::Start(env, onEvent, job);
  return JobHandle(env, job);
}

}  // namespace sawt
