// Entry point of sawt_native.node: per environment, an AddonState (addon_state.h) and the
// exports, which native/lib types engine by engine.
#include <napi.h>

#include "addon_state.h"
#include "chunk_event.h"
#include "dfn3_binding.h"
#include "encoders_binding.h"
#include "espeak_binding.h"
#include "hts_binding.h"
#include "onnx_binding.h"
#include "piper_binding.h"
#include "resampler_binding.h"
#include "voice_binding.h"

namespace sawt {
namespace {

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
  RegisterEspeakFunctions(env, exports);
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
