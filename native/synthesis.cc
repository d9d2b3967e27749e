#include "synthesis.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chunk_stream.h"
#include "errors.h"
#include "espeak_engine.h"
#include "priority_pool.h"
#include "resampler.h"

namespace sawt {
namespace {

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

// The espeak synthesis threads of the process (pools::EspeakSynthesis): jobs take turns one segment
// at a time, in FIFO order, a job's first segment ahead of later ones; a job without credit is
// parked, holding no thread, until JS reads or resumes.
PriorityPool& SynthesisPool() {
  static auto* pool = new PriorityPool(pools::EspeakSynthesis());  // lives as long as the process
  return *pool;
}

class SynthesisJob final : public espeak::SynthSink,
                           public ChunkStream,
                           public std::enable_shared_from_this<SynthesisJob> {
 public:
  explicit SynthesisJob(SynthesisOptions options)
      : ChunkStream(options.maxQueuedChunks, ErrorCode::kEspeak),
        options_(std::move(options)),
        chunkSamples_(static_cast<size_t>(options_.chunkMs) * options_.sampleRate / 1000) {}

 private:
  // A pool thread: one turn — send what waits, then synthesize one segment on `instance`; on a
  // later segments' thread, once no first segment waits for an instance (YieldToUrgent).
  void Step(int instance) {
    RunTurn("Synthesis failed: ", [&] {
      if (nextSegment_ == options_.segments.size()) return false;
      SynthesisPool().YieldToUrgent();
      SynthesizeSegment(nextSegment_++, instance);
      return true;
    });
  }

  void QueueTurn() override {
    // Read on the pool thread of the last turn, or on the main thread before the job is queued.
    const bool first = options_.urgent && nextSegment_ == 0;
    SynthesisPool().Submit([self = shared_from_this()](int instance) { self->Step(instance); }, first);
  }

  void SynthesizeSegment(size_t index, int instance) {
    const std::string& text = options_.segments[index];
    segment_ = static_cast<int>(index);
    segmentOutput_ = 0;
    ready_.clear();
    words_.clear();
    utf16Offsets_ = Utf16Offsets(text);
    // Made here, on the pool thread and outside espeak's lock: the resampler designs its filter
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
  std::unique_ptr<Resampler> resampler_;  // pool threads only, made at the first segment
  const size_t chunkSamples_;  // 0: one chunk per segment

  // Pool threads only (one turn at a time).
  size_t nextSegment_ = 0;
  size_t segmentOutput_ = 0;  // samples of this segment already cut into chunks
  std::vector<int16_t> ready_;
  std::vector<espeak::WordEvent> words_;
  std::vector<uint32_t> utf16Offsets_;
};

}  // namespace

std::shared_ptr<ChunkStream> MakeSynthesisJob(SynthesisOptions options) { return std::make_shared<SynthesisJob>(std::move(options)); }

}  // namespace sawt
