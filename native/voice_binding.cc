// Node-API side of voice_analysis.h: analyzeVoice / convertVoice / trackF0 resolve promises (libuv's
// pool); matchSpectra is cheap and synchronous.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bindings.h"
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

Napi::Value AnalysisToJs(Napi::Env env, const voice::Analysis& a) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("sampleRate", a.sampleRate);
  o.Set("totalSeconds", a.totalSeconds);
  o.Set("speechSeconds", a.speechSeconds);
  o.Set("voicedSeconds", a.voicedSeconds);
  o.Set("f0Median", a.f0Median);
  o.Set("logF0Mean", a.logF0Mean);
  o.Set("logF0Std", a.logF0Std);
  o.Set("syllableRate", a.syllableRate);
  o.Set("ltasDb", ToJsArray(env, a.ltasDb));
  o.Set("bandsDb", ToJsArray(env, a.bandsDb));
  o.Set("bandCenters", ToJsArray(env, a.bandCenters));
  o.Set("mfccMean", ToJsArray(env, a.mfccMean));
  return o;
}

// analyzeVoice(samples, rate) and trackF0(samples, rate), on libuv's pool.
Napi::Value AnalyzeVoice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<float> s = SamplesFrom(env, info[0]);
  const int rate = RateFrom(env, info[1]);
  return RunTask(
      env, "sawt.analyzeVoice", std::nullopt, [s = std::move(s), rate] { return voice::Analyze(s.data(), s.size(), rate); }, AnalysisToJs);
}

Napi::Value TrackF0(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<float> s = SamplesFrom(env, info[0]);
  const int rate = RateFrom(env, info[1]);
  return RunTask(
      env, "sawt.trackF0", std::nullopt, [s = std::move(s), rate] { return voice::TrackF0(s.data(), s.size(), rate, rate / 100); },
      CopyToJs<double>);
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
  auto convert = [s = std::move(s), rate, p = std::move(p)] {
    const std::vector<float> y = voice::Convert(s.data(), s.size(), rate, p);
    std::vector<int16_t> out(y.size());
    for (size_t i = 0; i < y.size(); ++i) {
      const float v = y[i] * 32767.0f;
      out[i] = static_cast<int16_t>(v > 32767.0f ? 32767 : (v < -32768.0f ? -32768 : v));
    }
    return out;
  };
  return RunTask(env, "sawt.convertVoice", std::nullopt, std::move(convert), CopyToJs<int16_t>);
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
  o.Set("eqDb", ToJsArray(env, m.eqDb));
  return o;
}

}  // namespace

void RegisterVoiceFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("analyzeVoice", Napi::Function::New(env, AnalyzeVoice, "analyzeVoice"));
  exports.Set("convertVoice", Napi::Function::New(env, ConvertVoice, "convertVoice"));
  exports.Set("trackF0", Napi::Function::New(env, TrackF0, "trackF0"));
  exports.Set("matchSpectra", Napi::Function::New(env, MatchSpectraJs, "matchSpectra"));
}

}  // namespace sawt
