// Node-API side of dfn3.h.
//   dfn3Load({ enc, erbDec, dfDec } file paths, { intraOpThreads?, blockFrames?, contextFrames?, executionProvider? }) -> Promise<model>
//   dfn3Open(model) -> stream          (one per channel; shares the model's sessions)
//   dfn3Process(stream, Float32Array, flush) -> Promise<Float32Array>
//     through the addon's bounded queue of ONNX runs; one call per stream at a time.
#pragma once

#include <napi.h>

namespace sawt {

void RegisterDfn3Functions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
