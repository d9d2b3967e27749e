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
  Napi::FunctionReference piperSessionClass;

  // ONNX runs execute on libuv's pool, which fs, dns and crypto share: at most
  // kMaxConcurrentOnnxRuns of them are queued there, the rest wait here. Every
  // ONNX run of the addon (OnnxSession, Piper) goes through this queue; a worker
  // queued here calls OnnxRunFinished once, on the main thread, when it settles.
  static constexpr int kMaxConcurrentOnnxRuns = 2;
  void QueueOnnxRun(Napi::AsyncWorker* worker);
  void OnnxRunFinished();

 private:
  int activeOnnxRuns_ = 0;
  std::deque<Napi::AsyncWorker*> waitingOnnxRuns_;
};

}  // namespace sawt
