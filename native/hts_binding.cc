// Node-API side of hts_synthesis: createHtsSynthesis and htsParameters read their options here (main
// thread) and hand the engine plain C++ values.
#include "hts_binding.h"

#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "errors.h"
#include "hts_synthesis.h"
#include "promise_worker.h"

namespace sawt {
namespace {

using args::Integer;
using args::NumberField;
using args::Received;

std::vector<std::vector<std::string>> ParseUtterances(Napi::Env env, const Napi::Value& utts) {
  if (!utts.IsArray() || utts.As<Napi::Array>().Length() == 0) {
    ThrowInvalidArgument(env, "Expected a non-empty array of label arrays for utterances");
  }
  std::vector<std::vector<std::string>> utterances;
  const Napi::Array arr = utts.As<Napi::Array>();
  for (uint32_t i = 0; i < arr.Length(); ++i) {
    const Napi::Value u = arr.Get(i);
    if (!u.IsArray() || u.As<Napi::Array>().Length() == 0) {
      ThrowInvalidArgument(env, "Expected a non-empty array of strings for utterances[" + std::to_string(i) + "]");
    }
    const Napi::Array labels = u.As<Napi::Array>();
    std::vector<std::string> lines;
    for (uint32_t j = 0; j < labels.Length(); ++j) {
      const Napi::Value l = labels.Get(j);
      if (!l.IsString()) ThrowInvalidArgument(env, "Expected a string for utterances[" + std::to_string(i) + "][" + std::to_string(j) + "]");
      lines.push_back(l.As<Napi::String>().Utf8Value());
    }
    utterances.push_back(std::move(lines));
  }
  return utterances;
}

// One given stream: a Float32Array or Float64Array of frames × dim values, copied to doubles here on the
// main thread (workers never touch JS memory). In lf0, NaN marks an unvoiced frame (kHtsNoData to the
// vocoder); any other non-finite value would reach the MLSA filter, so it is refused.
std::vector<double> ParseStream(Napi::Env env, const Napi::Value& v, const std::string& name, size_t frames, size_t dim,
                                bool lf0) {
  if (!v.IsTypedArray() || (v.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array &&
                            v.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)) {
    ThrowInvalidArgument(env, "Expected a Float32Array or Float64Array for " + name + " but received " + Received(v));
  }
  const Napi::TypedArray array = v.As<Napi::TypedArray>();
  const size_t count = frames * dim;
  if (array.ElementLength() != count) {
    ThrowInvalidArgument(env, "Expected " + std::to_string(count) + " values (frames " + std::to_string(frames) + " × dim " +
                                  std::to_string(dim) + ") for " + name + " but received " +
                                  std::to_string(array.ElementLength()));
  }
  const float* f32 = array.TypedArrayType() == napi_float32_array ? v.As<Napi::Float32Array>().Data() : nullptr;
  const double* f64 = f32 ? nullptr : v.As<Napi::Float64Array>().Data();
  std::vector<double> data(count);
  for (size_t i = 0; i < count; ++i) {
    const double x = f32 ? f32[i] : f64[i];
    if (lf0 && std::isnan(x)) {
      data[i] = kHtsNoData;
    } else if (!std::isfinite(x)) {
      ThrowInvalidArgument(env, std::string("Expected finite values") + (lf0 ? " (or NaN: unvoiced)" : "") + " for " + name +
                                    " but received " + (std::isnan(x) ? "NaN" : x > 0 ? "Infinity"
                                                                                      : "-Infinity") +
                                    " at index " + std::to_string(i));
    } else {
      data[i] = x;
    }
  }
  return data;
}

// parameters[index], shaped as htsParameters returns it. lpf (stream and dim) may be left out, for a voice
// without one; whether the streams fit the voice is known only with it loaded (CheckFitsVoice, on a worker).
HtsParams ParseStreams(Napi::Env env, const Napi::Value& value, size_t index) {
  constexpr size_t kMaxFrames = 1u << 30, kMaxDim = 4096;  // bounds that keep frames × dim far from overflow
  const std::string at = "parameters[" + std::to_string(index) + "]";
  if (!value.IsObject() || value.IsArray() || value.IsTypedArray()) {
    ThrowInvalidArgument(env, "Expected an object of parameter streams for " + at + " but received " + Received(value));
  }
  const Napi::Object o = value.As<Napi::Object>();
  HtsParams p;
  p.frames = Integer(env, o.Get("frames"), at + ".frames", 1, kMaxFrames);
  const Napi::Value dimsValue = o.Get("dims");
  if (!dimsValue.IsObject() || dimsValue.IsArray()) {
    ThrowInvalidArgument(env, "Expected an object {mgc, lf0, lpf} for " + at + ".dims but received " + Received(dimsValue));
  }
  const Napi::Object dims = dimsValue.As<Napi::Object>();
  for (size_t s = 0; s < kHtsMaxStreams; ++s) {
    const Napi::Value data = o.Get(kHtsStreamNames[s]), dim = dims.Get(kHtsStreamNames[s]);
    if (s == 2 && data.IsUndefined() && dim.IsUndefined()) break;
    p.dims.push_back(Integer(env, dim, at + ".dims." + kHtsStreamNames[s], 1, kMaxDim));
    p.data.push_back(ParseStream(env, data, at + "." + kHtsStreamNames[s], p.frames, p.dims.back(), s == 1));
  }
  return p;
}

std::vector<HtsParams> ParseParameters(Napi::Env env, const Napi::Value& value) {
  if (!value.IsArray() || value.As<Napi::Array>().Length() == 0) {
    ThrowInvalidArgument(env, "Expected a non-empty array of parameter streams (as htsParameters returns) for parameters but received " +
                                  Received(value));
  }
  const Napi::Array arr = value.As<Napi::Array>();
  std::vector<HtsParams> parameters;
  for (uint32_t i = 0; i < arr.Length(); ++i) parameters.push_back(ParseStreams(env, arr.Get(i), i));
  return parameters;
}

// words: per utterance, the words in order, each {label, textOffset, length}, label the index of the
// word's first phone in that utterance's labels; labels increase (a word has at least one phone).
std::vector<std::vector<HtsWordSpec>> ParseWords(Napi::Env env, const Napi::Value& value,
                                                 const std::vector<std::vector<std::string>>& utterances) {
  constexpr size_t kMaxText = 1u << 30;
  const size_t n = utterances.size();
  if (!value.IsArray() || value.As<Napi::Array>().Length() != n) {
    ThrowInvalidArgument(env, "Expected an array of " + std::to_string(n) + " word lists (one per utterance) for words but received " +
                                  (value.IsArray() ? "an array of " + std::to_string(value.As<Napi::Array>().Length())
                                                   : Received(value)));
  }
  const Napi::Array arr = value.As<Napi::Array>();
  std::vector<std::vector<HtsWordSpec>> words(n);
  for (uint32_t i = 0; i < n; ++i) {
    const std::string at = "words[" + std::to_string(i) + "]";
    const Napi::Value list = arr.Get(i);
    if (!list.IsArray()) ThrowInvalidArgument(env, "Expected an array of {label, textOffset, length} for " + at + " but received " + Received(list));
    const Napi::Array items = list.As<Napi::Array>();
    size_t nextLabel = 0;
    for (uint32_t j = 0; j < items.Length(); ++j) {
      const std::string wat = at + "[" + std::to_string(j) + "]";
      const Napi::Value item = items.Get(j);
      if (!item.IsObject() || item.IsArray() || item.IsTypedArray() || item.IsFunction()) {
        ThrowInvalidArgument(env, "Expected an object {label, textOffset, length} for " + wat + " but received " + Received(item));
      }
      const Napi::Object w = item.As<Napi::Object>();
      // The range says both: inside the utterance's labels, and after the previous word's first phone.
      if (nextLabel >= utterances[i].size()) {
        ThrowInvalidArgument(env, "Expected at most " + std::to_string(j) + " words for " + at + " (words[" + std::to_string(i) + "][" +
                                      std::to_string(j - 1) + "] starts at the last of the " + std::to_string(utterances[i].size()) +
                                      " labels of utterances[" + std::to_string(i) + "]) but received " + std::to_string(items.Length()));
      }
      HtsWordSpec spec;
      spec.label = Integer(env, w.Get("label"), wat + ".label", nextLabel, utterances[i].size() - 1);
      spec.textOffset = static_cast<double>(Integer(env, w.Get("textOffset"), wat + ".textOffset", 0, kMaxText));
      spec.length = static_cast<double>(Integer(env, w.Get("length"), wat + ".length", 0, kMaxText));
      nextLabel = spec.label + 1;
      words[i].push_back(spec);
    }
  }
  return words;
}

// voicedClosures: per utterance, label indices (each inside that utterance's labels) whose phone gets a
// voiced closure after generation (VoiceClosures).
std::vector<std::vector<size_t>> ParseClosures(Napi::Env env, const Napi::Value& value,
                                               const std::vector<std::vector<std::string>>& utterances) {
  const size_t n = utterances.size();
  if (!value.IsArray() || value.As<Napi::Array>().Length() != n) {
    ThrowInvalidArgument(env, "Expected an array of " + std::to_string(n) + " label lists (one per utterance) for voicedClosures but received " +
                                  (value.IsArray() ? "an array of " + std::to_string(value.As<Napi::Array>().Length()) : Received(value)));
  }
  const Napi::Array arr = value.As<Napi::Array>();
  std::vector<std::vector<size_t>> closures(n);
  for (uint32_t i = 0; i < n; ++i) {
    const std::string at = "voicedClosures[" + std::to_string(i) + "]";
    const Napi::Value list = arr.Get(i);
    if (!list.IsArray()) ThrowInvalidArgument(env, "Expected an array of label indices for " + at + " but received " + Received(list));
    const Napi::Array items = list.As<Napi::Array>();
    for (uint32_t j = 0; j < items.Length(); ++j) {
      closures[i].push_back(Integer(env, items.Get(j), at + "[" + std::to_string(j) + "]", 0, utterances[i].size() - 1));
    }
  }
  return closures;
}

// What a synthesis vocodes: labels to generate streams from, or streams given as they are; exactly one.
void ParseSource(Napi::Env env, const Napi::Object& opts, HtsJobOptions& o) {
  const Napi::Value utterances = opts.Get("utterances"), parameters = opts.Get("parameters");
  if (utterances.IsUndefined() == parameters.IsUndefined()) {
    ThrowInvalidArgument(env, std::string("Expected exactly one of utterances (labels) and parameters (streams) for options but received ") +
                                  (utterances.IsUndefined() ? "neither" : "both"));
  }
  if (parameters.IsUndefined()) {
    o.utterances = ParseUtterances(env, utterances);
  } else {
    o.parameters = ParseParameters(env, parameters);
  }
  const Napi::Value words = opts.Get("words");
  if (!words.IsUndefined()) {
    if (!parameters.IsUndefined()) {
      ThrowInvalidArgument(env, "Expected no words with parameters (word timings come from the labels' durations) for options.words but received " +
                                    Received(words));
    }
    o.words = ParseWords(env, words, o.utterances);
  }
  const Napi::Value closures = opts.Get("voicedClosures");
  if (!closures.IsUndefined()) {
    if (!parameters.IsUndefined()) {
      ThrowInvalidArgument(env, "Expected no voicedClosures with parameters (edit the given lf0 instead) for options.voicedClosures but received " +
                                    Received(closures));
    }
    o.closures = ParseClosures(env, closures, o.utterances);
  }
}

// The voice and the controls, shared by synthesis and htsParameters.
void ParseCommon(Napi::Env env, const Napi::Value& value, HtsJobOptions& o) {
  const Napi::Object opts = args::Object(env, value, "options");
  o.voicePath = args::String(env, opts.Get("voicePath"), "voicePath", true);
  // With given parameters, speed, halfTone, f0Spread and the GV weights have nothing to act on (they act
  // during generation); they are still checked, so that a bad value is not silently accepted.
  HtsControls& c = o.controls;
  c.speed = NumberField(env, opts, "speed", 0.25, 4, 1);
  c.halfTone = NumberField(env, opts, "halfTone", -24, 24, 0);
  c.f0Spread = NumberField(env, opts, "f0Spread", 0, 4, 1);
  c.alpha = NumberField(env, opts, "alpha", 0, 0.95, -1);
  c.gvLf0 = NumberField(env, opts, "gvWeightLf0", 0, 4, 1);
  c.gvMgc = NumberField(env, opts, "gvWeightMgc", 0, 4, 1);
  c.gainDb = NumberField(env, opts, "gainDb", -40, 12, -6);
  c.postfilter = NumberField(env, opts, "postfilter", 0, 0.8, 0);
  c.highpassHz = NumberField(env, opts, "highpassHz", 0, 500, 0);
  // mgcOffset: at most 256 numbers, each within ±10 (a mel-cepstral EQ of tens of dB at most).
  c.mgcOffset = args::NumberArray(env, opts.Get("mgcOffset"), "mgcOffset", 256, -10, 10);
  o.threads = static_cast<int>(NumberField(env, opts, "threads", 1, 64, 2));
}

// The create options of a synthesis beside its voice, controls and source.
void ParseStreaming(Napi::Env env, const Napi::Object& opts, HtsJobOptions& o) {
  o.sampleRate = static_cast<int>(NumberField(env, opts, "sampleRate", 8000, 48000, 24000));
  o.maxQueuedChunks = static_cast<int>(NumberField(env, opts, "maxQueuedChunks", 1, 1024, 4));
  o.chunkMs = static_cast<int>(NumberField(env, opts, "chunkMs", 0, 60000, 200));
  o.firstWindowFrames = static_cast<int>(NumberField(env, opts, "firstWindowFrames", 10, 100000, 80));
  o.windowFrames = static_cast<int>(NumberField(env, opts, "windowFrames", 10, 100000, 600));
  o.urgent = args::BooleanField(env, opts, "urgent", true);
}

// createHtsSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
Napi::Value CreateHtsSynthesis(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  HtsJobOptions o;
  ParseCommon(env, info[0], o);
  const Napi::Object opts = info[0].As<Napi::Object>();
  ParseSource(env, opts, o);
  ParseStreaming(env, opts, o);
  const Napi::Function onEvent = args::Function(env, info[1], "onEvent");
  std::shared_ptr<ChunkStream> job = MakeHtsJob(std::move(o));
  ChunkStream::Start(env, onEvent, job);
  return JobHandle(env, job);
}

// Parameter generation on the voice's pool, waited for on libuv's pool.
class ParametersWorker : public CodedPromiseWorker {
 public:
  ParametersWorker(Napi::Env env, HtsJobOptions o) : CodedPromiseWorker(env, "sawt.htsParameters", ErrorCode::kHts), o_(std::move(o)) {}

 protected:
  void Execute() override {
    Run([&] { generated_ = GenerateHtsParameters(o_); });
  }
  void OnOK() override {
    Napi::Env env = Env();
    const std::vector<HtsParams>& results = generated_.params;
    Napi::Array out = Napi::Array::New(env, results.size());
    for (size_t u = 0; u < results.size(); ++u) {
      const HtsParams& p = results[u];
      Napi::Object o = Napi::Object::New(env);
      o.Set("frames", static_cast<double>(p.frames));
      o.Set("framePeriodMs", 1000.0 * generated_.fperiod / generated_.sampleRate);
      o.Set("sampleRate", static_cast<double>(generated_.sampleRate));
      Napi::Object dims = Napi::Object::New(env);
      for (size_t s = 0; s < p.data.size() && s < kHtsMaxStreams; ++s) {
        auto arr = Napi::Float32Array::New(env, p.data[s].size());
        for (size_t i = 0; i < p.data[s].size(); ++i) {
          const double v = p.data[s][i];
          arr[i] = s == 1 && v <= kHtsNoData / 2 ? NAN : static_cast<float>(v);
        }
        o.Set(kHtsStreamNames[s], arr);
        dims.Set(kHtsStreamNames[s], static_cast<double>(p.dims[s]));
      }
      o.Set("dims", dims);
      auto starts = Napi::Int32Array::New(env, p.labelFrames.size());
      for (size_t i = 0; i < p.labelFrames.size(); ++i) starts[i] = static_cast<int32_t>(p.labelFrames[i]);
      o.Set("labelFrames", starts);
      out.Set(static_cast<uint32_t>(u), o);
    }
    deferred_.Resolve(out);
  }

 private:
  HtsJobOptions o_;
  HtsGenerated generated_;
};

// htsParameters(options) -> Promise<[{ frames, lf0, mgc, lpf, ... }]>
Napi::Value HtsParameters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  HtsJobOptions o;
  ParseCommon(env, info[0], o);
  o.utterances = ParseUtterances(env, info[0].As<Napi::Object>().Get("utterances"));
  const Napi::Value closures = info[0].As<Napi::Object>().Get("voicedClosures");
  if (!closures.IsUndefined()) o.closures = ParseClosures(env, closures, o.utterances);
  return (new ParametersWorker(env, std::move(o)))->Start();
}

}  // namespace

void RegisterHtsFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("createHtsSynthesis", Napi::Function::New(env, CreateHtsSynthesis, "createHtsSynthesis"));
  exports.Set("htsParameters", Napi::Function::New(env, HtsParameters, "htsParameters"));
}

}  // namespace sawt
