// What the ONNX Runtime users of the addon share (onnx_session.cc defines it):
// the process-wide Ort::Env and the CUDA execution provider check.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

namespace sawt {

// Any thread; throws EngineFailure (SAWT_ENGINE_ONNX) when the runtime is unusable.
Ort::Env& SharedOrtEnv();

// How much nicer than the thread that starts it every thread that runs ONNX work is: the addon's
// run threads and ONNX Runtime's intra-op threads (5 in a server started at nice 0). Like espeak's
// and HTS's threads, they yield to the JavaScript thread when the cores are busy (Linux applies
// PRIO_PROCESS with a thread id to that thread only). A new thread inherits its creator's nice value.
constexpr int kOnnxThreadNice = 5;

// Session options of every model of the addon: all graph optimizations, the thread counts (0: ONNX
// Runtime's default), CUDA when asked (else EngineFailure SAWT_ENGINE_CUDA_UNAVAILABLE naming what is
// missing: the provider libraries beside libonnxruntime, a build with CUDA, or the driver/GPU), and
// intra-op and inter-op threads niced at birth ("sawt-ort", kOnnxThreadNice): a pool thread of libuv,
// or any thread without privilege, could not lower its priority and take it back.
Ort::SessionOptions OrtSessionOptions(int intraOpThreads, int interOpThreads, bool cuda);

// Throws the EngineFailure of a model that failed to load: kCudaUnavailable when CUDA was asked for
// and the runtime names it, else kOnnx "Failed to load <what>: …".
[[noreturn]] void ThrowLoadFailure(const Ort::Exception& e, bool cuda, const std::string& what);

}  // namespace sawt
