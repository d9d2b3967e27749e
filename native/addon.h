// Per-environment state of the addon (one instance per main thread or worker
// thread that loads it), created by Node-API and destroyed with that environment.
// Everything in it is used on that environment's JS thread only.
#pragma once

#include <napi.h>

#include <deque>

namespace sawt {

class SawtAddon : public Napi::Addon<SawtAddon> {
 public:
  SawtAddon(Napi::Env env, Napi::Object exports);

  static SawtAddon& Of(Napi::Env env) { return *env.GetInstanceData<SawtAddon>(); }

  Napi::FunctionReference onnxSessionClass;

  // ONNX runs (OnnxSession.run, a DFN3 window) execute on libuv's pool, which fs,
  // dns and crypto share: at most kMaxConcurrentOnnxRuns of them are queued
  // there, the rest wait here. A worker queued this way calls OnnxRunFinished
  // once it completes (OnOK or OnError).
  static constexpr int kMaxConcurrentOnnxRuns = 2;
  void QueueOnnxRun(Napi::AsyncWorker* worker);
  void OnnxRunFinished();

 private:
  int activeOnnxRuns_ = 0;
  std::deque<Napi::AsyncWorker*> waitingOnnxRuns_;
};

}  // namespace sawt
