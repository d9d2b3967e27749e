// Entry point of sawt_native.node: see addon.h; the exported API is documented
// in plugins/engine/src/native/addon.ts.
#include "addon.h"

#include "dfn3.h"
#include "errors.h"
#include "espeak_engine.h"
#include "hts_synthesis.h"
#include "onnx_session.h"
#include "piper_binding.h"
#include "resampler_binding.h"
#include "synthesis.h"
#include "voice_binding.h"

namespace sawt {
namespace {

// A short job on libuv's pool that phonemizes one text.
class PhonemizeWorker : public Napi::AsyncWorker {
 public:
  PhonemizeWorker(Napi::Env env, std::string text, std::string voice, bool ipa)
      : Napi::AsyncWorker(env, "sawt.phonemize"),
        deferred_(Napi::Promise::Deferred::New(env)),
        text_(std::move(text)),
        voice_(std::move(voice)),
        ipa_(ipa) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      result_ = espeak::Phonemize(text_, voice_, ipa_);
    } catch (const EngineFailure& failure) {
      code_ = failure.code();
      SetError(failure.what());
    }
  }
  void OnOK() override { deferred_.Resolve(Napi::String::New(Env(), result_)); }
  void OnError(const Napi::Error& error) override {
    deferred_.Reject(MakeError(Env(), code_, error.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::string text_, voice_, result_;
  bool ipa_;
  ErrorCode code_ = ErrorCode::kEspeak;
};

Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) ThrowInvalidArgument(env, "Expected a string for text");
  if (!info[1].IsString() || info[1].As<Napi::String>().Utf8Value().empty()) {
    ThrowInvalidArgument(env, "Expected a non-empty string for voice");
  }
  // Optional third argument: "ipa" (default) or "espeak" (espeak's mnemonics, for [[ ]] input).
  bool ipa = true;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    const std::string mode = info[2].IsString() ? info[2].As<Napi::String>().Utf8Value() : "";
    if (mode != "ipa" && mode != "espeak") ThrowInvalidArgument(env, "Expected \"ipa\" or \"espeak\" for mode");
    ipa = mode == "ipa";
  }
  auto* worker = new PhonemizeWorker(env, info[0].As<Napi::String>().Utf8Value(),
                                     info[1].As<Napi::String>().Utf8Value(), ipa);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
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
    if (!info[0].IsNumber()) ThrowInvalidArgument(env, "Expected a number between 1 and 8 for count");
    const double count = info[0].As<Napi::Number>().DoubleValue();
    if (!(count >= 1 && count <= 8) || count != static_cast<int>(count)) {
      ThrowInvalidArgument(env, "Expected an integer between 1 and 8 for count");
    }
    return Napi::Number::New(env, espeak::SetInstances(static_cast<int>(count)));
  }
  return Napi::Number::New(env, espeak::Instances());
}

}  // namespace

SawtAddon::SawtAddon(Napi::Env env, Napi::Object exports) {
  exports.Set("phonemize", Napi::Function::New(env, Phonemize, "phonemize"));
  exports.Set("listVoices", Napi::Function::New(env, ListVoices, "listVoices"));
  exports.Set("espeakInstances", Napi::Function::New(env, EspeakInstances, "espeakInstances"));
  exports.Set("createSynthesis", Napi::Function::New(env, CreateSynthesis, "createSynthesis"));
  exports.Set("createHtsSynthesis", Napi::Function::New(env, CreateHtsSynthesis, "createHtsSynthesis"));
  exports.Set("htsParameters", Napi::Function::New(env, HtsParameters, "htsParameters"));
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

}  // namespace sawt

using sawt::SawtAddon;
NODE_API_ADDON(SawtAddon)
