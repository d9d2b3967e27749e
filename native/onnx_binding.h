// Node-API side of onnx_session.h: the OnnxSession class.
//
// - OnnxSession.create() loads the model on libuv's pool; run() executes on the
//   environment's ONNX pool, through its bounded queue of runs (onnx_runs.h).
// - Inputs: tensors are created over the feeds' TypedArray memory (no copy); a
//   reference keeps each TypedArray alive until the run settles. JS must not
//   write to a feed's memory while its run is pending.
// - Outputs: each output's Ort::Value moves to the heap and backs an external
//   ArrayBuffer (no copy); the ArrayBuffer's finalizer (JS thread) frees it.
// - release() drops the JS object's share of the session; runs in flight keep
//   theirs, so the session is freed when the last of them settles.
#pragma once

#include <napi.h>

namespace sawt {

Napi::Function DefineOnnxSessionClass(Napi::Env env);
// JS: availableProviders() -> string[] (e.g. ["CPUExecutionProvider"])
Napi::Value AvailableProviders(const Napi::CallbackInfo& info);

}  // namespace sawt
