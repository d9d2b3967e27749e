// Node-API side of hts_synthesis.h: createHtsSynthesis(options, onEvent) -> { pause(), resume(),
// cancel() } and htsParameters(options) -> Promise<[{ frames, lf0, mgc, lpf, ... }]>.
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bindings.h"
#include "errors.h"
#include "hts_synthesis.h"
#include "promise_worker.h"

namespace sawt {
namespace {

using args::Integer;
using args::NumberField;
using args::Received;

constexpr double kAny = 1e300;  // a finite number (its range is TypeScript's to check)

// The elements of an array for `name`.
std::vector<Napi::Value> ArrayOf(Napi::Env env, const Napi::Value& v, const std::string& name) {
  if (!v.IsArray()) ThrowInvalidArgument(env, "Expected an array for " + name + " but received " + Received(v));
  const Napi::Array array = v.As<Napi::Array>();
  std::vector<Napi::Value> items;
  for (uint32_t i = 0; i < array.Length(); ++i) items.push_back(array.Get(i));
  return items;
}

// The option values are checked in TypeScript (native/lib/validate.ts, validateHtsOptions) with the
// client's messages; the readers here check only what keeps the copies below in bounds: types,
// counts and the sizes they allocate.
// Per utterance (the array `name`), its items (the array `inner`), each read by `read`.
template <typename Read>
auto PerUtterance(Napi::Env env, const Napi::Value& value, const char* name, const char* inner, Read read) {
  std::vector<std::vector<decltype(read(value))>> out;
  for (const Napi::Value& list : ArrayOf(env, value, name)) {
    out.emplace_back();
    for (const Napi::Value& item : ArrayOf(env, list, inner)) out.back().push_back(read(item));
  }
  return out;
}

std::vector<std::vector<std::string>> ParseUtterances(Napi::Env env, const Napi::Value& value) {
  return PerUtterance(env, value, "utterances", "an utterance", [&](const Napi::Value& label) { return args::String(env, label, "a label"); });
}

// One given stream: a Float32Array or Float64Array of frames × dim values, copied to doubles here on the
// main thread (workers never touch JS memory). In lf0, NaN marks an unvoiced frame (kHtsNoData to the
// vocoder).
std::vector<double> ParseStream(Napi::Env env, const Napi::Value& v, const std::string& name, size_t frames, size_t dim,
                                bool lf0) {
  const size_t count = frames * dim;
  const auto type = v.IsTypedArray() ? v.As<Napi::TypedArray>().TypedArrayType() : napi_int8_array;
  if ((type != napi_float32_array && type != napi_float64_array) || v.As<Napi::TypedArray>().ElementLength() != count) {
    ThrowInvalidArgument(env, "Expected a Float32Array or Float64Array of frames × dim values for " + name);
  }
  const Napi::TypedArray array = v.As<Napi::TypedArray>();
  const float* f32 = array.TypedArrayType() == napi_float32_array ? v.As<Napi::Float32Array>().Data() : nullptr;
  const double* f64 = f32 ? nullptr : v.As<Napi::Float64Array>().Data();
  std::vector<double> data(count);
  for (size_t i = 0; i < count; ++i) {
    const double x = f32 ? f32[i] : f64[i];
    data[i] = lf0 && std::isnan(x) ? kHtsNoData : x;
  }
  return data;
}

// parameters[index], shaped as htsParameters returns it. lpf (stream and dim) may be left out, for a voice
// without one; whether the streams fit the voice is known only with it loaded (CheckFitsVoice, on a worker).
HtsParams ParseStreams(Napi::Env env, const Napi::Value& value, size_t index) {
  constexpr size_t kMaxFrames = 1u << 30, kMaxDim = 4096;  // bounds that keep frames × dim far from overflow
  const std::string at = "parameters[" + std::to_string(index) + "]";
  const Napi::Object o = args::Object(env, value, at);
  HtsParams p;
  p.frames = Integer(env, o.Get("frames"), at + ".frames", 1, kMaxFrames);
  const Napi::Object dims = args::Object(env, o.Get("dims"), at + ".dims");
  for (size_t s = 0; s < kHtsMaxStreams; ++s) {
    const Napi::Value data = o.Get(kHtsStreamNames[s]), dim = dims.Get(kHtsStreamNames[s]);
    if (s == 2 && data.IsUndefined() && dim.IsUndefined()) break;
    p.dims.push_back(Integer(env, dim, at + ".dims." + kHtsStreamNames[s], 1, kMaxDim));
    p.data.push_back(ParseStream(env, data, at + "." + kHtsStreamNames[s], p.frames, p.dims.back(), s == 1));
  }
  return p;
}

std::vector<HtsParams> ParseParameters(Napi::Env env, const Napi::Value& value) {
  std::vector<HtsParams> parameters;
  for (const Napi::Value& streams : ArrayOf(env, value, "parameters")) parameters.push_back(ParseStreams(env, streams, parameters.size()));
  return parameters;
}

// words: per utterance, the words in order, each {label, textOffset, length} (label: the index of the
// word's first phone; PlaceWords keeps it inside the labels).
std::vector<std::vector<HtsWordSpec>> ParseWords(Napi::Env env, const Napi::Value& value) {
  constexpr size_t kMaxIndex = 1u << 30;
  return PerUtterance(env, value, "words", "a word list", [&](const Napi::Value& item) {
    const Napi::Object w = args::Object(env, item, "a word");
    return HtsWordSpec{static_cast<size_t>(Integer(env, w.Get("label"), "label", 0, kMaxIndex)),
                       static_cast<double>(Integer(env, w.Get("textOffset"), "textOffset", 0, kMaxIndex)),
                       static_cast<double>(Integer(env, w.Get("length"), "length", 0, kMaxIndex))};
  });
}

// voicedClosures: per utterance, label indices whose phone gets a voiced closure after generation
// (VoiceClosures skips any outside the labels).
std::vector<std::vector<size_t>> ParseClosures(Napi::Env env, const Napi::Value& value) {
  return PerUtterance(env, value, "voicedClosures", "a label list",
                      [&](const Napi::Value& x) { return static_cast<size_t>(Integer(env, x, "a label index", 0, 1u << 30)); });
}

// What a synthesis vocodes: labels to generate streams from, or streams given as they are; exactly one.
void ParseSource(Napi::Env env, const Napi::Object& opts, HtsJobOptions& o) {
  const Napi::Value parameters = opts.Get("parameters");
  if (!parameters.IsUndefined()) {
    o.parameters = ParseParameters(env, parameters);
    return;
  }
  o.utterances = ParseUtterances(env, opts.Get("utterances"));
  if (!opts.Get("words").IsUndefined()) o.words = ParseWords(env, opts.Get("words"));
  if (!opts.Get("voicedClosures").IsUndefined()) o.closures = ParseClosures(env, opts.Get("voicedClosures"));
}

// The voice and the controls, shared by synthesis and htsParameters.
void ParseCommon(Napi::Env env, const Napi::Value& value, HtsJobOptions& o) {
  const Napi::Object opts = args::Object(env, value, "options");
  o.voicePath = args::String(env, opts.Get("voicePath"), "voicePath", true);
  // Bounded here too: speed sets the frames generated (memory), threads the threads started.
  HtsControls& c = o.controls;
  c.speed = NumberField(env, opts, "speed", 0.25, 4, 1);
  o.threads = static_cast<int>(NumberField(env, opts, "threads", 1, 64, 2));
  c.halfTone = NumberField(env, opts, "halfTone", -kAny, kAny, 0);
  c.f0Spread = NumberField(env, opts, "f0Spread", -kAny, kAny, 1);
  c.alpha = NumberField(env, opts, "alpha", -kAny, kAny, -1);
  c.gvLf0 = NumberField(env, opts, "gvWeightLf0", -kAny, kAny, 1);
  c.gvMgc = NumberField(env, opts, "gvWeightMgc", -kAny, kAny, 1);
  c.gainDb = NumberField(env, opts, "gainDb", -kAny, kAny, -6);
  c.postfilter = NumberField(env, opts, "postfilter", -kAny, kAny, 0);
  c.highpassHz = NumberField(env, opts, "highpassHz", -kAny, kAny, 0);
  c.mgcOffset = args::NumberArray(env, opts.Get("mgcOffset"), "mgcOffset", 256, -kAny, kAny);
}

// The create options of a synthesis beside its voice, controls and source: bounds of the chunks' and
// windows' sizes (memory).
void ParseStreaming(Napi::Env env, const Napi::Object& opts, HtsJobOptions& o) {
  o.sampleRate = static_cast<int>(NumberField(env, opts, "sampleRate", 8000, 48000, 24000));
  o.maxQueuedChunks = static_cast<int>(NumberField(env, opts, "maxQueuedChunks", 1, 1024, 4));
  o.chunkMs = static_cast<int>(NumberField(env, opts, "chunkMs", 0, 60000, 200));
  o.firstWindowFrames = static_cast<int>(NumberField(env, opts, "firstWindowFrames", 10, 100000, 80));
  o.windowFrames = static_cast<int>(NumberField(env, opts, "windowFrames", 10, 100000, 600));
  o.urgent = args::BooleanField(env, opts, "urgent", true);
  o.background = args::BooleanField(env, opts, "background", false);
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

// htsParameters' result (main thread).
Napi::Value ParametersToJs(Napi::Env env, const HtsGenerated& generated) {
  return ToJsArray(env, generated.params, [&](const HtsParams& p) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("frames", static_cast<double>(p.frames));
    o.Set("framePeriodMs", 1000.0 * generated.fperiod / generated.sampleRate);
    o.Set("sampleRate", static_cast<double>(generated.sampleRate));
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
    return o;
  });
}

// htsParameters(options) -> Promise<[{ frames, lf0, mgc, lpf, ... }]>
Napi::Value HtsParameters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  HtsJobOptions o;
  ParseCommon(env, info[0], o);
  const Napi::Object opts = info[0].As<Napi::Object>();
  o.utterances = ParseUtterances(env, opts.Get("utterances"));
  if (!opts.Get("voicedClosures").IsUndefined()) o.closures = ParseClosures(env, opts.Get("voicedClosures"));
  // Generated on the voice's pool, waited for on libuv's pool.
  return RunTask(
      env, "sawt.htsParameters", ErrorCode::kHts, [o = std::move(o)] { return GenerateHtsParameters(o); }, ParametersToJs);
}

}  // namespace

void RegisterHtsFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("createHtsSynthesis", Napi::Function::New(env, CreateHtsSynthesis, "createHtsSynthesis"));
  exports.Set("htsParameters", Napi::Function::New(env, HtsParameters, "htsParameters"));
}

}  // namespace sawt
