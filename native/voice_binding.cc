// Node-API side of voice_analysis: analyzeVoice / convertVoice / trackF0 run on libuv's
// pool (AsyncWorker) and resolve promises; matchSpectra is cheap and synchronous.
#include "voice_binding.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "errors.h"
#include "promise_worker.h"
#include "voice_analysis.h"

namespace sawt {
namespace {

std::vector<float> SamplesFrom(Napi::Env env, const Napi::Value& v) {
  Napi::Int16Array s = args::Int16Array(env, v, "samples");
  std::vector<float> out(s.ElementLength());
  for (size_t i = 0; i < out.size(); ++i) out[i] = s[i] / 32768.0f;
  return out;
}

int RateFrom(Napi::Env env, const Napi::Value& v) { return static_cast<int>(args::Integer(env, v, "sample rate", 8000, 48000)); }

// An array of numbers (undefined or null: none).
std::vector<double> NumbersFrom(Napi::Env env, const Napi::Value& v, const char* name) {
  return v.IsNull() ? std::vector<double>() : args::NumberArray(env, v, name, 1u << 20, -INFINITY, INFINITY);
}

Napi::Array ToArray(Napi::Env env, const std::vector<double>& v) {
  Napi::Array a = Napi::Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a.Set(static_cast<uint32_t>(i), Napi::Number::New(env, v[i]));
  return a;
}

// Work on one clip of samples.
class SamplesWorker : public PromiseWorker {
 protected:
  SamplesWorker(Napi::Env env, const char* name, std::vector<float> samples, int rate)
      : PromiseWorker(env, name), samples_(std::move(samples)), rate_(rate) {}

  std::vector<float> samples_;
  int rate_;
};

class AnalyzeWorker : public SamplesWorker {
 public:
  AnalyzeWorker(Napi::Env env, std::vector<float> samples, int rate)
      : SamplesWorker(env, "sawt.analyzeVoice", std::move(samples), rate) {}

 protected:
  void Execute() override { result_ = voice::Analyze(samples_.data(), samples_.size(), rate_); }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("sampleRate", result_.sampleRate);
    o.Set("totalSeconds", result_.totalSeconds);
    o.Set("speechSeconds", result_.speechSeconds);
    o.Set("voicedSeconds", result_.voicedSeconds);
    o.Set("f0Median", result_.f0Median);
    o.Set("logF0Mean", result_.logF0Mean);
    o.Set("logF0Std", result_.logF0Std);
    o.Set("syllableRate", result_.syllableRate);
    o.Set("ltasDb", ToArray(env, result_.ltasDb));
    o.Set("bandsDb", ToArray(env, result_.bandsDb));
    o.Set("bandCenters", ToArray(env, result_.bandCenters));
    o.Set("mfccMean", ToArray(env, result_.mfccMean));
    deferred_.Resolve(o);
  }

 private:
  voice::Analysis result_;
};

class ConvertWorker : public SamplesWorker {
 public:
  ConvertWorker(Napi::Env env, std::vector<float> samples, int rate, voice::ConvertParams p)
      : SamplesWorker(env, "sawt.convertVoice", std::move(samples), rate), params_(std::move(p)) {}

 protected:
  void Execute() override {
    const std::vector<float> y = voice::Convert(samples_.data(), samples_.size(), rate_, params_);
    out_.resize(y.size());
    for (size_t i = 0; i < y.size(); ++i) {
      const float v = y[i] * 32767.0f;
      out_[i] = static_cast<int16_t>(v > 32767.0f ? 32767 : (v < -32768.0f ? -32768 : v));
    }
  }
  void OnOK() override {
    Napi::Int16Array a = Napi::Int16Array::New(Env(), out_.size());
    if (!out_.empty()) std::memcpy(a.Data(), out_.data(), out_.size() * sizeof(int16_t));
    deferred_.Resolve(a);
  }

 private:
  voice::ConvertParams params_;
  std::vector<int16_t> out_;
};

class TrackF0Worker : public SamplesWorker {
 public:
  TrackF0Worker(Napi::Env env, std::vector<float> samples, int rate)
      : SamplesWorker(env, "sawt.trackF0", std::move(samples), rate) {}

 protected:
  void Execute() override { f0_ = voice::TrackF0(samples_.data(), samples_.size(), rate_, rate_ / 100); }
  void OnOK() override {
    Napi::Float64Array a = Napi::Float64Array::New(Env(), f0_.size());
    if (!f0_.empty()) std::memcpy(a.Data(), f0_.data(), f0_.size() * sizeof(double));
    deferred_.Resolve(a);
  }

 private:
  std::vector<double> f0_;
};

// f(samples, rate): a promise of work on the samples, done by Worker.
template <typename Worker>
Napi::Value OnSamples(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<float> s = SamplesFrom(env, info[0]);
  const int rate = RateFrom(env, info[1]);
  return (new Worker(env, std::move(s), rate))->Start();
}

Napi::Value ConvertVoice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<float> s = SamplesFrom(env, info[0]);
  const int rate = RateFrom(env, info[1]);
  Napi::Object o = args::Object(env, info[2], "params");
  voice::ConvertParams p;
  p.srcLogF0Mean = args::Number(env, o.Get("srcLogF0Mean"), "srcLogF0Mean", 3, 7);
  p.srcLogF0Std = args::Number(env, o.Get("srcLogF0Std"), "srcLogF0Std", 0, 2);
  p.dstLogF0Mean = args::Number(env, o.Get("dstLogF0Mean"), "dstLogF0Mean", 3, 7);
  p.dstLogF0Std = args::Number(env, o.Get("dstLogF0Std"), "dstLogF0Std", 0, 2);
  p.warp = args::Number(env, o.Get("warp"), "warp", 0.5, 2);
  p.eqDb = NumbersFrom(env, o.Get("eqDb"), "eqDb");
  if (!p.eqDb.empty() && p.eqDb.size() != voice::kBins) ThrowInvalidArgument(env, "Expected " + std::to_string(voice::kBins) + " values for eqDb");
  // Optional F0 track of the samples (Hz per 10 ms, from trackF0): one value per full hop.
  Napi::Value f0 = o.Get("f0");
  if (!f0.IsUndefined() && !f0.IsNull()) {
    Napi::Float64Array fa = args::TypedArray(env, f0, "f0", napi_float64_array, "Float64Array").As<Napi::Float64Array>();
    if (fa.ElementLength() != s.size() / static_cast<size_t>(rate / 100)) ThrowInvalidArgument(env, "Expected one f0 value per 10 ms of samples");
    p.f0.assign(fa.Data(), fa.Data() + fa.ElementLength());
    for (double& v : p.f0)
      if (!(v >= 0 && v < 2000)) v = 0;
  }
  return (new ConvertWorker(env, std::move(s), rate, std::move(p)))->Start();
}

Napi::Value MatchSpectraJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<double> ref = NumbersFrom(env, info[0], "ref");
  const std::vector<double> base = NumbersFrom(env, info[1], "base");
  const int rate = RateFrom(env, info[2]);
  if (ref.size() != voice::kBins || base.size() != voice::kBins) {
    ThrowInvalidArgument(env, "Expected " + std::to_string(voice::kBins) + " values for each spectrum");
  }
  const voice::SpectralMatch m = voice::MatchSpectra(ref, base, rate);
  Napi::Object o = Napi::Object::New(env);
  o.Set("warp", m.warp);
  o.Set("distanceBefore", m.distanceBefore);
  o.Set("distanceAfter", m.distanceAfter);
  o.Set("eqDb", ToArray(env, m.eqDb));
  return o;
}

}  // namespace

void RegisterVoiceFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("analyzeVoice", Napi::Function::New(env, OnSamples<AnalyzeWorker>, "analyzeVoice"));
  exports.Set("convertVoice", Napi::Function::New(env, ConvertVoice, "convertVoice"));
  exports.Set("trackF0", Napi::Function::New(env, OnSamples<TrackF0Worker>, "trackF0"));
  exports.Set("matchSpectra", Napi::Function::New(env, MatchSpectraJs, "matchSpectra"));
}

}  // namespace sawt
