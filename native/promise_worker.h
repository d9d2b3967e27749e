// AsyncWorkers that settle a promise: every asynchronous call of the addon runs
// on one of these (on libuv's pool; ONNX runs on the addon's own threads).
#pragma once

#include <napi.h>

#include <exception>

#include "addon_state.h"
#include "errors.h"

namespace sawt {

// Start() queues the worker and returns its promise; the subclass resolves
// deferred_ in OnOK. A failure rejects the promise with the error as it is.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  Napi::Promise Start() {
    Napi::Promise p = deferred_.Promise();
    Queue();
    return p;
  }

 protected:
  PromiseWorker(Napi::Env env, const char* name) : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}
  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

  Napi::Promise::Deferred deferred_;
};

// A PromiseWorker whose failure rejects with an error code: an EngineFailure's,
// else `fallback`. Execute runs its work through Run.
class CodedPromiseWorker : public PromiseWorker {
 protected:
  CodedPromiseWorker(Napi::Env env, const char* name, ErrorCode fallback) : PromiseWorker(env, name), code_(fallback) {}

  // Runs `work`, keeping a failure for OnError.
  template <typename F>
  void Run(F work) {
    try {
      work();
    } catch (const EngineFailure& f) {
      code_ = f.code();
      SetError(f.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnError(const Napi::Error& error) override { deferred_.Reject(MakeError(Env(), code_, error.Message()).Value()); }

 private:
  ErrorCode code_;
};

// A CodedPromiseWorker (fallback SAWT_ENGINE_ONNX) that runs an ONNX model: it
// goes through its environment's bounded queue of ONNX runs (onnx_runs.h),
// executes on one of the addon's niced ONNX threads (never on libuv's pool), and
// frees its place in the queue when it settles, before OnOK or OnError.
class OnnxRunPromiseWorker : public CodedPromiseWorker {
 public:
  // `background`: work nobody waits to hear (a long-form job's); it runs on the environment's
  // background ONNX thread (OnnxRuns), never in a slot a live request could take.
  Napi::Promise Start(bool background = false) {
    Napi::Promise p = deferred_.Promise();
    background_ = background;
    AddonState::Of(Env()).onnxRuns.Queue(this, background);
    return p;
  }
  // An ONNX thread of the addon: the work, as libuv's pool would run it (an exception becomes the error).
  void ExecuteOnRunThread() {
    try {
      Execute();
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  // Main thread, once ExecuteOnRunThread returned (status napi_ok): settles, then deletes the worker.
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    AddonState::Of(env).onnxRuns.Finished(background_);
    CodedPromiseWorker::OnWorkComplete(env, status);
  }

 protected:
  OnnxRunPromiseWorker(Napi::Env env, const char* name) : CodedPromiseWorker(env, name, ErrorCode::kOnnx) {}

 private:
  bool background_ = false;
};

}  // namespace sawt
