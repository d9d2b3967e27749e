// The Node-API bindings of the engines, which addon.cc registers per environment; each
// X_binding.cc reads its JS arguments (their values checked in TypeScript first,
// native/lib/validate.ts) and hands its engine plain C++ values. Main thread only.
#pragma once

#include <napi.h>

namespace sawt {

void RegisterEspeakFunctions(Napi::Env env, Napi::Object exports);  // espeak_binding.cc
void RegisterHtsFunctions(Napi::Env env, Napi::Object exports);  // hts_binding.cc
void RegisterDfn3Functions(Napi::Env env, Napi::Object exports);  // dfn3_binding.cc
void RegisterVoiceFunctions(Napi::Env env, Napi::Object exports);  // voice_binding.cc
Napi::Function DefineResamplerClass(Napi::Env env);  // resampler_binding.cc
Napi::Function DefineEncoderClass(Napi::Env env);  // encoders_binding.cc
Napi::Function DefineOnnxSessionClass(Napi::Env env);  // onnx_binding.cc
Napi::Value AvailableProviders(const Napi::CallbackInfo& info);
Napi::Function DefinePiperSessionClass(Napi::Env env);  // piper_binding.cc
void RegisterPiperFunctions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
