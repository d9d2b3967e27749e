// What the ONNX Runtime users of the addon share (onnx_session.cc defines it):
// the process-wide Ort::Env and the CUDA execution provider check.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace sawt {

// Any thread; throws EngineFailure (SAWT_ENGINE_ONNX) when the runtime is unusable.
Ort::Env& SharedOrtEnv();

// How much nicer than the thread that starts it every thread that runs ONNX work is: the addon's
// run threads and ONNX Runtime's intra-op threads (5 in a server started at nice 0). Like espeak's
// and HTS's threads, they yield to the JavaScript thread when the cores are busy (Linux applies
// PRIO_PROCESS with a thread id to that thread only). A new thread inherits its creator's nice value.
constexpr int kOnnxThreadNice = 5;

// The calling thread: raises its nice value by kOnnxThreadNice (at most 19) and sets its name to
// `name` (at most 15 characters; /proc/self/task/<tid>/comm).
void NiceOnnxThread(const char* name);

// Makes the sessions created with `options` start their thread pool threads (intra-op, inter-op)
// through NiceOnnxThread ("sawt-ort"): a pool thread of libuv, or any thread without privilege,
// could not lower its priority and take it back, so ONNX Runtime's own threads are niced at birth.
void UseNicedOrtThreads(Ort::SessionOptions& options);

// Appends CUDA to `options`, or throws EngineFailure SAWT_ENGINE_CUDA_UNAVAILABLE
// naming what is missing (the provider libraries beside libonnxruntime, a build
// with CUDA, or the driver/GPU as ONNX Runtime reports it).
void AppendCudaProvider(Ort::SessionOptions& options);

}  // namespace sawt
