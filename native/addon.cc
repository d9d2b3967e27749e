// Entry point of sawt_native.node: per environment, an AddonState (addon_state.h) and the
// exports, which native/lib types engine by engine.
#include <napi.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "addon_state.h"
#include "args.h"
#include "chunk_event.h"
#include "dfn3_binding.h"
#include "encoders_binding.h"
#include "errors.h"
#include "espeak_engine.h"
#include "hts_binding.h"
#include "onnx_binding.h"
#include "piper_binding.h"
#include "priority_pool.h"
#include "resampler_binding.h"
#include "synthesis.h"
#include "voice_binding.h"

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

// phonemize(text, voice, mode?, urgent?): mode "ipa" (default) or "espeak" (espeak's mnemonics, for
// [[ ]] input); urgent (default false): goes ahead of waiting calls that are not.
Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string text = args::String(env, info[0], "text");
  std::string voice = args::String(env, info[1], "voice", true);
  bool ipa = true;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    const std::string mode = info[2].IsString() ? info[2].As<Napi::String>().Utf8Value() : "";
    if (mode != "ipa" && mode != "espeak") ThrowInvalidArgument(env, "Expected \"ipa\" or \"espeak\" for mode");
    ipa = mode == "ipa";
  }
  bool urgent = false;
  if (info.Length() > 3 && !info[3].IsUndefined()) {
    if (!info[3].IsBoolean()) ThrowInvalidArgument(env, "Expected a boolean for urgent");
    urgent = info[3].As<Napi::Boolean>().Value();
  }
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
  Napi::Array result = Napi::Array::New(env, voices.size());
  for (size_t i = 0; i < voices.size(); ++i) {
    Napi::Object voice = Napi::Object::New(env);
    voice.Set("name", voices[i].name);
    Napi::Array languages = Napi::Array::New(env, voices[i].languages.size());
    for (size_t j = 0; j < voices[i].languages.size(); ++j) {
      languages.Set(static_cast<uint32_t>(j), voices[i].languages[j]);
    }
    voice.Set("languages", languages);
    voice.Set("identifier", voices[i].identifier);
    result.Set(static_cast<uint32_t>(i), voice);
  }
  return result;
}

// espeakInstances(count?): sets the espeak-ng instances (before the first use; later calls change
// nothing) and returns the count in force.
Napi::Value EspeakInstances(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    return Napi::Number::New(env, espeak::SetInstances(static_cast<int>(args::Integer(env, info[0], "count", 1, 8))));
  }
  return Napi::Number::New(env, espeak::Instances());
}

Napi::Value PcmInFlightValue(const Napi::CallbackInfo& info) {
  const PcmInFlight live = PcmChunksInFlight();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("chunks", static_cast<double>(live.chunks));
  result.Set("bytes", static_cast<double>(live.bytes));
  return result;
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* state = new AddonState();
  env.SetInstanceData(state);  // deleted at environment teardown
  exports.Set("phonemize", Napi::Function::New(env, Phonemize, "phonemize"));
  exports.Set("listVoices", Napi::Function::New(env, ListVoices, "listVoices"));
  exports.Set("espeakInstances", Napi::Function::New(env, EspeakInstances, "espeakInstances"));
  Napi::Object rateRange = Napi::Object::New(env);
  rateRange.Set("min", espeak::kMinRate);
  rateRange.Set("max", espeak::kMaxRate);
  rateRange.Freeze();
  exports.Set("espeakRateRange", rateRange);
  exports.Set("createSynthesis", Napi::Function::New(env, CreateSynthesis, "createSynthesis"));
  exports.Set("pcmInFlight", Napi::Function::New(env, PcmInFlightValue, "pcmInFlight"));
  RegisterHtsFunctions(env, exports);
  exports.Set("Resampler", DefineResamplerClass(env));
  exports.Set("AudioEncoder", DefineEncoderClass(env));
  Napi::Function sessionClass = DefineOnnxSessionClass(env);
  state->onnxSessionClass = Napi::Persistent(sessionClass);
  exports.Set("OnnxSession", sessionClass);
  exports.Set("availableProviders", Napi::Function::New(env, AvailableProviders, "availableProviders"));
  RegisterVoiceFunctions(env, exports);
  RegisterDfn3Functions(env, exports);
  Napi::Function piperClass = DefinePiperSessionClass(env);
  state->piperSessionClass = Napi::Persistent(piperClass);
  exports.Set("PiperSession", piperClass);
  RegisterPiperFunctions(env, exports);
  return exports;
}

}  // namespace sawt

namespace {
Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return sawt::Init(env, exports); }
}  // namespace
NODE_API_MODULE(sawt_native, InitAddon)
