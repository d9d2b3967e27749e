// Per-environment state of the addon (one instance per main thread or worker
// thread that loads it), created by Node-API and destroyed with that environment.
// Everything in it is used on that environment's JS thread only.
#pragma once

#include <napi.h>

#include <deque>
#include <memory>

namespace sawt {

class OnnxRunPromiseWorker;  // promise_worker.h
class OnnxRunThreads;  // addon.cc
class EventPump;  // event_pump.h

class SawtAddon : public Napi::Addon<SawtAddon> {
 public:
  SawtAddon(Napi::Env env, Napi::Object exports);
  ~SawtAddon();  // environment teardown: joins the ONNX run threads

  static SawtAddon& Of(Napi::Env env) { return *env.GetInstanceData<SawtAddon>(); }

  Napi::FunctionReference onnxSessionClass;
  Napi::FunctionReference piperSessionClass;
  // The synthesis jobs' audio events to the JavaScript thread (EventPump::Of creates it).
  std::shared_ptr<EventPump> eventPump;

  // ONNX runs execute on threads of the addon's own (kMaxConcurrentOnnxRuns of them, started at
  // the first run, niced: kOnnxThreadNice), not on libuv's pool, which fs, dns and crypto share
  // and whose threads run at the JavaScript thread's priority: at most kMaxConcurrentOnnxRuns run
  // at once, the rest wait here. Every ONNX run of the addon (OnnxSession, Piper, a DFN3 window)
  // goes through this queue; a worker queued here calls OnnxRunFinished once, on the main thread,
  // when it settles.
  static constexpr int kMaxConcurrentOnnxRuns = 2;
  void QueueOnnxRun(OnnxRunPromiseWorker* worker);
  void OnnxRunFinished();

 private:
  void StartOnnxRun(OnnxRunPromiseWorker* worker);

  int activeOnnxRuns_ = 0;
  std::deque<OnnxRunPromiseWorker*> waitingOnnxRuns_;
  std::unique_ptr<OnnxRunThreads> onnxRunThreads_;
};

}  // namespace sawt
