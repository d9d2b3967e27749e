// Entry point of sawt_native.node: see addon.h; the exported API is documented
// in native/lib/addon.ts.
#include "addon.h"

#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "dfn3_binding.h"
#include "errors.h"
#include "espeak_engine.h"
#include "hts_binding.h"
#include "onnx_binding.h"
#include "piper_binding.h"
#include "promise_worker.h"
#include "resampler_binding.h"
#include "synthesis.h"
#include "voice_binding.h"

namespace sawt {
namespace {

// A short job on libuv's pool that phonemizes one text.
class PhonemizeWorker : public CodedPromiseWorker {
 public:
  PhonemizeWorker(Napi::Env env, std::string text, std::string voice, bool ipa)
      : CodedPromiseWorker(env, "sawt.phonemize", ErrorCode::kEspeak), text_(std::move(text)), voice_(std::move(voice)), ipa_(ipa) {}

 protected:
  void Execute() override {
    Run([&] { result_ = espeak::Phonemize(text_, voice_, ipa_); });
  }
  void OnOK() override { deferred_.Resolve(Napi::String::New(Env(), result_)); }

 private:
  std::string text_, voice_, result_;
  bool ipa_;
};

// phonemize(text, voice, mode?): mode "ipa" (default) or "espeak" (espeak's mnemonics, for [[ ]] input).
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
  return (new PhonemizeWorker(env, std::move(text), std::move(voice), ipa))->Start();
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

}  // namespace

SawtAddon::SawtAddon(Napi::Env env, Napi::Object exports) {
  exports.Set("phonemize", Napi::Function::New(env, Phonemize, "phonemize"));
  exports.Set("listVoices", Napi::Function::New(env, ListVoices, "listVoices"));
  exports.Set("espeakInstances", Napi::Function::New(env, EspeakInstances, "espeakInstances"));
  Napi::Object rateRange = Napi::Object::New(env);
  rateRange.Set("min", espeak::kMinRate);
  rateRange.Set("max", espeak::kMaxRate);
  rateRange.Freeze();
  exports.Set("espeakRateRange", rateRange);
  exports.Set("createSynthesis", Napi::Function::New(env, CreateSynthesis, "createSynthesis"));
  RegisterHtsFunctions(env, exports);
  exports.Set("Resampler", DefineResamplerClass(env));
  Napi::Function sessionClass = DefineOnnxSessionClass(env);
  onnxSessionClass = Napi::Persistent(sessionClass);
  exports.Set("OnnxSession", sessionClass);
  exports.Set("availableProviders", Napi::Function::New(env, AvailableProviders, "availableProviders"));
  RegisterVoiceFunctions(env, exports);
  RegisterDfn3Functions(env, exports);
  Napi::Function piperClass = DefinePiperSessionClass(env);
  piperSessionClass = Napi::Persistent(piperClass);
  exports.Set("PiperSession", piperClass);
  RegisterPiperFunctions(env, exports);
}

void SawtAddon::QueueOnnxRun(Napi::AsyncWorker* worker) {
  if (activeOnnxRuns_ < kMaxConcurrentOnnxRuns) {
    ++activeOnnxRuns_;
    worker->Queue();
  } else {
    waitingOnnxRuns_.push_back(worker);
  }
}

void SawtAddon::OnnxRunFinished() {
  --activeOnnxRuns_;
  if (!waitingOnnxRuns_.empty()) {
    Napi::AsyncWorker* next = waitingOnnxRuns_.front();
    waitingOnnxRuns_.pop_front();
    ++activeOnnxRuns_;
    next->Queue();
  }
}

}  // namespace sawt

using sawt::SawtAddon;
NODE_API_ADDON(SawtAddon)
