#include "hts_synthesis.h"

extern "C" {
#include <HTS_engine.h>
// Exported by libHTSEngine, declared only in its private header.
void HTS_GStreamSet_clear(HTS_GStreamSet* gss);
size_t HTS_ModelSet_get_vector_length(HTS_ModelSet* ms, size_t stream_index);
}

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chunk_stream.h"
#include "errors.h"
#include "priority_pool.h"
#include "resampler.h"

namespace sawt {
namespace {

// --- a pool per voice file, an engine per thread ---

class HtsPool {
 public:
  using Task = std::function<void(HTS_Engine*)>;  // the thread's engine, null when the voice did not load

  // `background`: the voice's second pool, for work nobody waits to hear (pools::Hts).
  static HtsPool& For(const std::string& voicePath, int threads, bool background) {
    static std::mutex mutex;
    static auto* pools = new std::map<std::pair<std::string, bool>, HtsPool*>();  // live as long as the process
    std::lock_guard<std::mutex> guard(mutex);
    HtsPool*& pool = (*pools)[{voicePath, background}];
    if (!pool) pool = new HtsPool(voicePath, threads, background);
    return *pool;
  }

  // `urgent` turns (a job's first audio) go ahead of the others, each kind in arrival order.
  void Submit(Task task, bool urgent = false) {
    pool_.Submit([this, task = std::move(task)](int slot) { task(loaded_[slot] ? &engines_[slot] : nullptr); }, urgent);
  }

 private:
  HtsPool(std::string voicePath, int threads, bool background)
      : voicePath_(std::move(voicePath)), engines_(threads), loaded_(threads), pool_(pools::Hts(threads, background), [this](int slot) { Load(slot); }) {}

  // The slot's own thread, before its first task.
  void Load(int slot) {
    HTS_Engine_initialize(&engines_[slot]);
    char* voices[] = {const_cast<char*>(voicePath_.c_str())};
    loaded_[slot] = HTS_Engine_load(&engines_[slot], voices, 1) == TRUE;
  }

  const std::string voicePath_;
  std::vector<HTS_Engine> engines_;  // per slot, used by its thread alone
  std::vector<char> loaded_;
  PriorityPool pool_;  // last: its threads use the members above
};

// --- parameters ---

void ApplyConditions(HTS_Engine* engine, const HtsControls& c) {
  HTS_Engine_set_speed(engine, c.speed);
  HTS_Engine_add_half_tone(engine, c.halfTone);
  const size_t streams = HTS_Engine_get_nstream(engine);
  if (streams > 0) HTS_Engine_set_gv_weight(engine, 0, c.gvMgc);
  if (streams > 1) HTS_Engine_set_gv_weight(engine, 1, c.gvLf0);
}

// A voiced closure on each of the given labels (stops the voice only has voiceless, e.g. /g/ as k):
// log F0 over the first 60 % of the phone's frames bridged linearly from the last voiced frame before
// to the first voiced frame after (one side only at an utterance edge); the release stays as generated.
void VoiceClosures(HtsParams& p, const std::vector<size_t>& labels) {
  if (p.data.size() < 2) return;
  auto& lf0 = p.data[1];
  const auto voiced = [&](size_t f) { return lf0[f] > kHtsNoData / 2; };
  for (size_t label : labels) {
    if (label >= p.labelFrames.size()) continue;
    const size_t start = p.labelFrames[label];
    const size_t end = label + 1 < p.labelFrames.size() ? p.labelFrames[label + 1] : p.frames;
    if (end <= start) continue;
    const size_t stop = start + std::max<size_t>(1, static_cast<size_t>(std::llround((end - start) * 0.6)));
    long before = static_cast<long>(start) - 1;
    while (before >= 0 && !voiced(static_cast<size_t>(before))) --before;
    size_t after = start;
    while (after < p.frames && !voiced(after)) ++after;
    if (before < 0 && after >= p.frames) continue;  // nothing voiced to bridge from
    const double from = before >= 0 ? lf0[static_cast<size_t>(before)] : lf0[after];
    const double to = after < p.frames ? lf0[after] : from;
    for (size_t f = start; f < stop && f < p.frames; ++f) {
      lf0[f] = from + (to - from) * static_cast<double>(f - start + 1) / static_cast<double>(stop - start + 1);
    }
  }
}

// Labels → parameter streams; leaves the engine refreshed. `closures`: labels given a voiced closure.
HtsParams Generate(HTS_Engine* engine, const std::vector<std::string>& labels, const HtsControls& c,
                   const std::vector<size_t>* closures = nullptr) {
  ApplyConditions(engine, c);
  std::vector<char*> lines;
  lines.reserve(labels.size());
  for (const auto& l : labels) lines.push_back(const_cast<char*>(l.c_str()));
  HtsParams p;
  if (HTS_Engine_generate_state_sequence_from_strings(engine, lines.data(), lines.size()) != TRUE ||
      HTS_Engine_generate_parameter_sequence(engine) != TRUE) {
    HTS_Engine_refresh(engine);
    throw EngineFailure(ErrorCode::kInvalidArgument, "HTS engine rejected the labels");
  }
  // Where each phone starts: the sum of the state durations before it (nstate states a phone; the
  // durations are the generated ones, speed included), in frames.
  const size_t nstate = HTS_Engine_get_nstate(engine), states = HTS_Engine_get_total_state(engine);
  p.labelFrames.reserve(labels.size());
  for (size_t s = 0, frame = 0; s < states; ++s) {
    if (s % nstate == 0) p.labelFrames.push_back(frame);
    frame += HTS_Engine_get_state_duration(engine, s);
  }
  HTS_PStreamSet& pss = engine->pss;
  p.frames = pss.total_frame;
  for (size_t s = 0; s < pss.nstream; ++s) {
    const HTS_PStream& ps = pss.pstream[s];
    const size_t dim = ps.vector_length;
    p.dims.push_back(dim);
    std::vector<double> d(p.frames * dim, kHtsNoData);
    size_t msdFrame = 0;
    for (size_t f = 0; f < p.frames; ++f) {
      if (ps.msd_flag && !ps.msd_flag[f]) continue;
      const size_t src = ps.msd_flag ? msdFrame++ : f;
      for (size_t k = 0; k < dim; ++k) d[f * dim + k] = ps.par[src][k];
    }
    p.data.push_back(std::move(d));
  }
  HTS_Engine_refresh(engine);
  if (closures && !closures->empty()) VoiceClosures(p, *closures);
  // A constant mel-cepstral offset is a fixed filter in the log-spectral domain (a smooth EQ).
  if (!p.data.empty() && !c.mgcOffset.empty()) {
    const size_t dim = p.dims[0], n = std::min(dim, c.mgcOffset.size());
    for (size_t f = 0; f < p.frames; ++f)
      for (size_t k = 0; k < n; ++k) p.data[0][f * dim + k] += c.mgcOffset[k];
  }
  // F0 spread: scale voiced log F0 around its mean.
  if (p.data.size() > 1 && c.f0Spread != 1.0) {
    auto& lf0 = p.data[1];
    double sum = 0;
    size_t n = 0;
    for (size_t f = 0; f < p.frames; ++f)
      if (lf0[f] > kHtsNoData / 2) {
        sum += lf0[f];
        ++n;
      }
    if (n) {
      const double mean = sum / n;
      for (size_t f = 0; f < p.frames; ++f)
        if (lf0[f] > kHtsNoData / 2) lf0[f] = mean + (lf0[f] - mean) * c.f0Spread;
    }
  }
  return p;
}

std::string StreamName(size_t s) { return s < kHtsMaxStreams ? kHtsStreamNames[s] : "stream" + std::to_string(s); }

std::string DimsText(const std::vector<size_t>& dims) {
  std::string text = "{";
  for (size_t s = 0; s < dims.size(); ++s) text += (s ? ", " : "") + StreamName(s) + ": " + std::to_string(dims[s]);
  return text + "}";
}

// Caller-given streams must be the voice's streams at the voice's widths: Vocode reads rows of the
// voice's vector lengths, so a narrower row would be read past its end. Needs a loaded engine (a worker).
void CheckFitsVoice(HTS_Engine* engine, const HtsParams& p, size_t index) {
  std::vector<size_t> voice(HTS_Engine_get_nstream(engine));
  for (size_t s = 0; s < voice.size(); ++s) voice[s] = HTS_ModelSet_get_vector_length(&engine->ms, s);
  if (p.dims != voice) {
    throw EngineFailure(ErrorCode::kInvalidArgument, "Expected dims " + DimsText(voice) + " (the voice's) for parameters[" +
                                                         std::to_string(index) + "].dims but received " + DimsText(p.dims));
  }
}

// Vocodes frames [begin, end) of `p` on `engine`; appends 48 kHz samples (as doubles).
void Vocode(HTS_Engine* engine, const HtsParams& p, size_t begin, size_t end, double alpha, double beta, std::vector<double>& out) {
  const size_t n = end - begin, streams = p.dims.size();
  std::vector<HTS_PStream> ps(streams);
  std::vector<std::vector<double*>> rows(streams);
  std::vector<std::vector<HTS_Boolean>> msd(streams);
  for (size_t s = 0; s < streams; ++s) {
    std::memset(&ps[s], 0, sizeof(HTS_PStream));
    ps[s].vector_length = p.dims[s];
    ps[s].length = n;
    const bool isMsd = s == 1;
    auto& d = const_cast<std::vector<double>&>(p.data[s]);
    if (isMsd) msd[s].resize(n);
    for (size_t f = 0; f < n; ++f) {
      double* row = &d[(begin + f) * p.dims[s]];
      if (isMsd) {
        msd[s][f] = row[0] > kHtsNoData / 2 ? TRUE : FALSE;
        if (!msd[s][f]) continue;
      }
      rows[s].push_back(row);
    }
    ps[s].par = rows[s].data();
    ps[s].msd_flag = isMsd ? msd[s].data() : nullptr;
  }
  HTS_PStreamSet mine{ps.data(), streams, n};
  const HTS_PStreamSet saved = engine->pss;
  const double savedAlpha = HTS_Engine_get_alpha(engine);
  const double savedVolume = HTS_Engine_get_volume(engine);
  engine->pss = mine;
  if (alpha >= 0) HTS_Engine_set_alpha(engine, alpha);
  HTS_Engine_set_beta(engine, beta);
  HTS_Engine_set_volume(engine, 0.0);
  const bool ok = HTS_Engine_generate_sample_sequence(engine) == TRUE;
  engine->pss = saved;
  HTS_Engine_set_alpha(engine, savedAlpha);
  HTS_Engine_set_volume(engine, savedVolume);
  if (ok) {
    const size_t samples = HTS_Engine_get_nsamples(engine);
    for (size_t i = 0; i < samples; ++i) out.push_back(HTS_Engine_get_generated_speech(engine, i));
  }
  HTS_GStreamSet_clear(&engine->gss);
  if (!ok) throw EngineFailure(ErrorCode::kHts, "HTS vocoder failed");
}

// A 2nd-order Butterworth high-pass (bilinear transform), state kept across calls: the vocoder's train of
// positive pulses gives a DC offset and rumble a glottal source does not have.
class HighPass {
 public:
  HighPass(double hz, double rate) {
    if (hz <= 0) return;
    const double w = std::tan(M_PI * hz / rate), n = 1.0 / (1.0 + std::sqrt(2.0) * w + w * w);
    b0_ = n;
    a1_ = 2.0 * (w * w - 1.0) * n;
    a2_ = (1.0 - std::sqrt(2.0) * w + w * w) * n;
    on_ = true;
  }

  void Process(std::vector<double>& x) {
    if (!on_) return;
    for (double& v : x) {
      const double y = b0_ * (v - 2.0 * x1_ + x2_) - a1_ * y1_ - a2_ * y2_;
      x2_ = x1_;
      x1_ = v;
      y2_ = y1_;
      y1_ = y;
      v = y;
    }
  }

 private:
  bool on_ = false;
  double b0_ = 0, a1_ = 0, a2_ = 0;
  double x1_ = 0, x2_ = 0, y1_ = 0, y2_ = 0;
};

// --- the streaming job (same event contract as synthesis.cc) ---

constexpr size_t kWarmupFrames = 8;  // vocoded before a window and dropped (MLSA filter settles)
constexpr size_t kFadeFrames = 2;  // vocoded past a window's end and cross-faded into the next

class HtsJob final : public ChunkStream, public std::enable_shared_from_this<HtsJob> {
 public:
  explicit HtsJob(HtsJobOptions o)
      : ChunkStream(o.maxQueuedChunks, ErrorCode::kHts),
        options_(std::move(o)),
        pool_(HtsPool::For(options_.voicePath, options_.threads, options_.background)),
        gain_(std::pow(10.0, options_.controls.gainDb / 20.0)),
        chunkSamples_(static_cast<size_t>(options_.chunkMs) * options_.sampleRate / 1000) {}

 private:
  void QueueTurn() override {
    auto self = shared_from_this();
    // Before the first window of the first sentence is vocoded (read on the worker that ran the last
    // turn, or on the main thread while no turn is queued).
    const bool first = options_.urgent && next_ <= 1 && frame_ == 0;
    pool_.Submit([self](HTS_Engine* engine) { self->Step(engine); }, first);
  }

  // A worker thread: one turn — send what waits, then generate or vocode one window.
  void Step(HTS_Engine* engine) {
    if (!engine) return Finish(ErrorCode::kInvalidArgument, "HTS voice failed to load: " + options_.voicePath);
    RunTurn("HTS synthesis failed: ", [&] {
      if (!params_) {
        if (next_ == options_.utterances.size() + options_.parameters.size()) return false;
        segment_ = static_cast<int>(next_);
        params_ = NextParams(engine);
        frame_ = 0;
        tail_.clear();
        const size_t voiceRate = HTS_Engine_get_sampling_frequency(engine);
        resampler_.reset(new Resampler(static_cast<int>(voiceRate), options_.sampleRate));
        highpass_ = HighPass(options_.controls.highpassHz, static_cast<double>(voiceRate));
        fperiod_ = HTS_Engine_get_fperiod(engine);
        PlaceWords(voiceRate);
      } else {
        VocodeWindow(engine);
      }
      return true;
    });
  }

  // The next sentence's streams: generated from its labels, or a copy of the caller's, all checked
  // against the voice first (a bad one fails the stream before any audio, not halfway).
  HtsParams NextParams(HTS_Engine* engine) {
    const size_t i = next_++;
    if (options_.parameters.empty()) {
      return Generate(engine, options_.utterances[i], options_.controls, i < options_.closures.size() ? &options_.closures[i] : nullptr);
    }
    if (i == 0) {
      for (size_t k = 0; k < options_.parameters.size(); ++k) CheckFitsVoice(engine, options_.parameters[k], k);
    }
    return options_.parameters[i];
  }

  // The sentence's words at output samples from its start: each window adds exactly its frames ×
  // fperiod voice-rate samples, and the zero-phase resampler puts voice-rate sample n at output n·out/in.
  void PlaceWords(size_t voiceRate) {
    words_.clear();
    segmentOutput_ = 0;
    const size_t u = static_cast<size_t>(segment_);
    if (u >= options_.words.size() || params_->labelFrames.empty()) return;
    for (const HtsWordSpec& w : options_.words[u]) {
      const double frame = static_cast<double>(params_->labelFrames[std::min(w.label, params_->labelFrames.size() - 1)]);
      const double sample = frame * static_cast<double>(fperiod_) * options_.sampleRate / static_cast<double>(voiceRate);
      words_.push_back(PlacedWord{static_cast<size_t>(std::llround(sample)), w.textOffset, w.length});
    }
  }

  void VocodeWindow(HTS_Engine* engine) {
    const HtsParams& p = *params_;
    // Windows grow (at most 5× the audio already made) up to windowFrames: fewer boundaries, while a
    // window's vocoding stays well inside the playing time of what was sent before it.
    const size_t size = frame_ == 0 ? static_cast<size_t>(options_.firstWindowFrames)
                                    : std::min<size_t>(options_.windowFrames, 5 * frame_);
    const size_t begin = frame_;
    const size_t end = QuietEnd(p, begin + std::max<size_t>(1, size * 2 / 3), begin + size, begin + size * 3 / 2);
    const size_t from = begin >= kWarmupFrames ? begin - kWarmupFrames : 0;
    const size_t to = std::min(p.frames, end + kFadeFrames);
    std::vector<double> raw;
    Vocode(engine, p, from, to, options_.controls.alpha, options_.controls.postfilter, raw);
    const size_t skip = (begin - from) * fperiod_;
    const size_t keep = (end - begin) * fperiod_;
    std::vector<double> body(raw.begin() + std::min(skip, raw.size()), raw.begin() + std::min(skip + keep, raw.size()));
    // Cross-fade the previous window's overhang into the start of this one.
    for (size_t i = 0; i < tail_.size() && i < body.size(); ++i) {
      const double w = (i + 0.5) / tail_.size();
      body[i] = body[i] * w + tail_[i] * (1 - w);
    }
    tail_.assign(raw.begin() + std::min(skip + keep, raw.size()), raw.end());
    frame_ = end;
    highpass_.Process(body);
    const bool last = end >= p.frames;
    std::vector<int16_t> pcm(body.size());
    for (size_t i = 0; i < body.size(); ++i) pcm[i] = Limit(body[i] * gain_);
    resampler_->Process(pcm.data(), pcm.size(), ready_);
    if (last) resampler_->Flush(ready_);
    if (chunkSamples_ > 0) {
      while (ready_.size() >= chunkSamples_ && !(last && ready_.size() == chunkSamples_)) CutChunk(chunkSamples_, false);
    }
    if (last) {
      if (!ready_.empty()) CutChunk(ready_.size(), true);
      params_.reset();
    }
  }

  // Where a window ends, within [lo, hi] around target: the sentence's end when it is in reach, else the
  // quietest frame (lowest c0) inside an unvoiced stretch, so that the cross-fade mixes noise and not two
  // pulse trains of different phase (each window's vocoder starts its own); target when none is unvoiced.
  static size_t QuietEnd(const HtsParams& p, size_t lo, size_t target, size_t hi) {
    if (hi >= p.frames || p.data.size() < 2) return std::min(target, p.frames);
    const std::vector<double>& lf0 = p.data[1];
    const std::vector<double>& mgc = p.data[0];
    const size_t dim = p.dims[0];
    auto unvoiced = [&](size_t f) { return lf0[f] <= kHtsNoData / 2; };
    size_t best = target;
    double bestCost = INFINITY;
    for (size_t f = std::max<size_t>(lo, 2); f < hi && f + kFadeFrames < p.frames; ++f) {
      bool quiet = true;
      for (size_t k = f - 2; k <= f + kFadeFrames && quiet; ++k) quiet = unvoiced(k);
      if (!quiet) continue;
      const double cost = mgc[f * dim] + 0.002 * (f > target ? f - target : target - f);
      if (cost < bestCost) {
        bestCost = cost;
        best = f;
      }
    }
    return best;
  }

  // Soft limiter: linear below 0.75 FS, a tanh knee above, toward 0.9 FS: the band-limited resampler that
  // follows can overshoot a limited waveform (bright voices, strong EQ) by a few percent without clipping.
  static int16_t Limit(double x) {
    constexpr double kFs = 32767.0, kKnee = 0.75 * kFs, kRoom = 0.15 * kFs;
    if (!std::isfinite(x)) return 0;  // a diverged filter (extreme given parameters) gives silence, not noise
    const double a = std::fabs(x);
    double y = a <= kKnee ? a : kKnee + kRoom * std::tanh((a - kKnee) / kRoom);
    y = std::min(y, kFs);
    return static_cast<int16_t>(std::lrint(x < 0 ? -y : y));
  }

  void CutChunk(size_t count, bool segmentEnd) {
    std::unique_ptr<ChunkMessage> message = TakeChunk(ready_, count, segmentEnd);
    // The words that start inside this chunk (the last chunk of a sentence takes any left).
    const size_t chunkEnd = segmentOutput_ + count;
    while (!words_.empty() && (segmentEnd || words_.front().sample < chunkEnd)) {
      const PlacedWord& w = words_.front();
      const double ms = w.sample > segmentOutput_ ? (w.sample - segmentOutput_) * 1000.0 / options_.sampleRate : 0.0;
      message->words.push_back(WordTiming{w.textOffset, w.length, ms});
      words_.pop_front();
    }
    segmentOutput_ = chunkEnd;
    Send(std::move(message));
  }

  const HtsJobOptions options_;
  HtsPool& pool_;
  const double gain_;
  const size_t chunkSamples_;

  // Touched by one worker at a time (a job is queued at most once; the pool's mutex orders turns).
  size_t next_ = 0;
  std::optional<HtsParams> params_;
  size_t frame_ = 0, fperiod_ = 240;
  std::vector<double> tail_;
  std::unique_ptr<Resampler> resampler_;
  HighPass highpass_{0, 1};
  std::vector<int16_t> ready_;
  struct PlacedWord {
    size_t sample;  // output samples from the sentence's start
    double textOffset, length;
  };
  std::deque<PlacedWord> words_;  // of the current sentence, not yet sent
  size_t segmentOutput_ = 0;  // output samples of the current sentence cut into chunks so far
};

}  // namespace

std::shared_ptr<ChunkStream> MakeHtsJob(HtsJobOptions options) { return std::make_shared<HtsJob>(std::move(options)); }

HtsGenerated GenerateHtsParameters(const HtsJobOptions& o) {
  HtsPool& pool = HtsPool::For(o.voicePath, o.threads, o.background);
  HtsGenerated out;
  for (const auto& labels : o.utterances) {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> future = done->get_future();
    pool.Submit([&, done](HTS_Engine* engine) {
      try {
        if (!engine) throw EngineFailure(ErrorCode::kInvalidArgument, "HTS voice failed to load: " + o.voicePath);
        const size_t u = out.params.size();
        out.params.push_back(Generate(engine, labels, o.controls, u < o.closures.size() ? &o.closures[u] : nullptr));
        out.sampleRate = HTS_Engine_get_sampling_frequency(engine);
        out.fperiod = HTS_Engine_get_fperiod(engine);
        done->set_value();
      } catch (...) {
        done->set_exception(std::current_exception());
      }
    });
    future.get();  // rethrows the worker's failure
  }
  return out;
}

}  // namespace sawt
