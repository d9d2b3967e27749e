// The process-wide ONNX Runtime environment, shared by every native user of
// ONNX Runtime (OnnxSession, DFN3). Defined in onnx_session.cc: created on first
// use, from any thread, and never destroyed (sessions may outlive static destruction).
#pragma once

#include <onnxruntime_cxx_api.h>

namespace sawt {

Ort::Env& SharedOrtEnv();

}  // namespace sawt
