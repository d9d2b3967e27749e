// What the ONNX Runtime users of the addon share (onnx_session.cc defines it):
// the process-wide Ort::Env and the CUDA execution provider check.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace sawt {

// Any thread; throws EngineFailure (SAWT_ENGINE_ONNX) when the runtime is unusable.
Ort::Env& SharedOrtEnv();

// Appends CUDA to `options`, or throws EngineFailure SAWT_ENGINE_CUDA_UNAVAILABLE
// naming what is missing (the provider libraries beside libonnxruntime, a build
// with CUDA, or the driver/GPU as ONNX Runtime reports it).
void AppendCudaProvider(Ort::SessionOptions& options);

}  // namespace sawt
