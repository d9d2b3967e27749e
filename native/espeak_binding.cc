// Node-API side of espeak-ng (espeak_engine.h, synthesis.h):
//   phonemize(text, voice, mode, urgent) -> Promise<string>, on the phonemize pool
//   listVoices() -> [{ name, languages, identifier }]; espeakInstances(count?) -> number
//   createSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bindings.h"
#include "errors.h"
#include "espeak_engine.h"
#include "priority_pool.h"
#include "promise_worker.h"
#include "synthesis.h"

namespace sawt {
namespace {

// A phonemize call between the JavaScript thread and its pool thread (pools::Phonemize); the result
// reaches JS through a thread-safe function per call.
struct PhonemizeCall {
  std::string text, voice, result, error;
  bool ipa = true;
  ErrorCode code = ErrorCode::kEspeak;
  bool failed = false;
  Napi::Promise::Deferred deferred;
  explicit PhonemizeCall(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
};

// Main thread: settles the call's promise (env is null at environment teardown: nothing to settle).
void SettlePhonemize(Napi::Env env, Napi::Function, PhonemizeCall* call, void*) {
  std::unique_ptr<PhonemizeCall> owned(call);
  if (env == nullptr) return;
  if (call->failed) {
    call->deferred.Reject(MakeError(env, call->code, call->error).Value());
  } else {
    call->deferred.Resolve(Napi::String::New(env, call->result));
  }
}

using PhonemizeChannel = Napi::TypedThreadSafeFunction<PhonemizeCall, void, SettlePhonemize>;

// A pool thread: runs the call and hands it to the main thread.
void RunPhonemize(PhonemizeCall* call, PhonemizeChannel channel) {
  try {
    call->result = espeak::Phonemize(call->text, call->voice, call->ipa);
  } catch (const EngineFailure& failure) {
    call->failed = true;
    call->code = failure.code();
    call->error = failure.what();
  } catch (const std::exception& e) {
    call->failed = true;
    call->error = e.what();
  }
  if (channel.BlockingCall(call) != napi_ok) delete call;  // the environment is gone
  channel.Release();
}

// phonemize(text, voice, mode, urgent): mode "ipa" or "espeak" (espeak's mnemonics, for [[ ]]
// input); urgent: goes ahead of waiting calls that are not.
Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string text = args::String(env, info[0], "text");
  std::string voice = args::String(env, info[1], "voice", true);
  const bool ipa = args::String(env, info[2], "mode") == "ipa";
  const bool urgent = info[3].ToBoolean();
  auto* call = new PhonemizeCall(env);
  call->text = std::move(text);
  call->voice = std::move(voice);
  call->ipa = ipa;
  Napi::Promise promise = call->deferred.Promise();
  // Holds the event loop open until the call is settled (a CLI awaiting it must not exit first).
  PhonemizeChannel channel = PhonemizeChannel::New(env, "sawt.phonemize", 0, 1, call);
  static auto* pool = new PriorityPool(pools::Phonemize());  // lives as long as the process
  pool->Submit([call, channel](int) { RunPhonemize(call, channel); }, urgent);
  return promise;
}

Napi::Value ListVoices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<espeak::VoiceInfo> voices;
  try {
    voices = espeak::ListVoices();
  } catch (const EngineFailure& failure) {
    throw MakeError(env, failure);
  }
  return ToJsArray(env, voices, [&](const espeak::VoiceInfo& v) {
    Napi::Object voice = Napi::Object::New(env);
    voice.Set("name", v.name);
    voice.Set("languages", ToJsArray(env, v.languages));
    voice.Set("identifier", v.identifier);
    return voice;
  });
}

// espeakInstances(count?): sets the espeak-ng instances (before the first use; later calls change
// nothing) and returns the count in force.
Napi::Value EspeakInstances(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    return Napi::Number::New(env, espeak::SetInstances(args::Int32(env, info[0], "count")));
  }
  return Napi::Number::New(env, espeak::Instances());
}

SynthesisOptions ParseOptions(Napi::Env env, const Napi::Value& value) {
  const Napi::Object options = args::Object(env, value, "options");
  SynthesisOptions parsed;

  const Napi::Value segments = options.Get("segments");
  if (!segments.IsArray()) ThrowInvalidArgument(env, "Expected an array of strings for segments");
  const Napi::Array array = segments.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); ++i) {
    parsed.segments.push_back(args::String(env, array.Get(i), "segments[" + std::to_string(i) + "]"));
  }

  parsed.params.voice = args::String(env, options.Get("voice"), "voice", true);
  parsed.params.rate = args::Int32(env, options.Get("rate"), "rate");
  parsed.params.pitch = args::Int32(env, options.Get("pitch"), "pitch");
  parsed.params.range = args::Int32(env, options.Get("range"), "range");
  // Bounds the chunk arithmetic and a chunk's size relies on.
  parsed.sampleRate = static_cast<int>(args::Integer(env, options.Get("sampleRate"), "sampleRate", 1000, 384000));
  parsed.maxQueuedChunks = static_cast<int>(args::IntegerField(env, options, "maxQueuedChunks", 1, 1024, 4));
  parsed.chunkMs = static_cast<int>(args::IntegerField(env, options, "chunkMs", 0, 60000, 0));
  parsed.params.phonemeInput = args::BooleanField(env, options, "phonemeInput", false);
  parsed.urgent = args::BooleanField(env, options, "urgent", true);
  return parsed;
}

// createSynthesis(options, onEvent): options as NativeSynthesisOptions (native/lib/espeak.ts).
Napi::Value CreateSynthesis(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SynthesisOptions options = ParseOptions(env, info[0]);
  const Napi::Function onEvent = args::Function(env, info[1], "onEvent");
  std::shared_ptr<ChunkStream> job = MakeSynthesisJob(std::move(options));
  ChunkStream::Start(env, onEvent, job);
  return JobHandle(env, job);
}

}  // namespace

void RegisterEspeakFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("phonemize", Napi::Function::New(env, Phonemize, "phonemize"));
  exports.Set("listVoices", Napi::Function::New(env, ListVoices, "listVoices"));
  exports.Set("espeakInstances", Napi::Function::New(env, EspeakInstances, "espeakInstances"));
  exports.Set("createSynthesis", Napi::Function::New(env, CreateSynthesis, "createSynthesis"));
  Napi::Object rateRange = Napi::Object::New(env);
  rateRange.Set("min", espeak::kMinRate);
  rateRange.Set("max", espeak::kMaxRate);
  rateRange.Freeze();
  exports.Set("espeakRateRange", rateRange);
}

}  // namespace sawt
