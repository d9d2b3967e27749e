// AsyncWorkers that settle a promise: every asynchronous call of the addon runs
// on one of these (on libuv's pool; ONNX runs on the addon's own threads); and
// the JS values they resolve with, made on the main thread.
#pragma once

#include <napi.h>

#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "addon_state.h"
#include "errors.h"

namespace sawt {

// Start() queues the worker and returns its promise; the subclass resolves deferred_ in OnOK. A
// failure rejects with an error code: an EngineFailure's, else `fallback` (none: the error as it
// is). Execute runs its work through Run.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  Napi::Promise Start() {
    Napi::Promise p = deferred_.Promise();
    Queue();
    return p;
  }

 protected:
  PromiseWorker(Napi::Env env, const char* name, std::optional<ErrorCode> fallback)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)), code_(fallback) {}

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
  void OnError(const Napi::Error& error) override {
    deferred_.Reject(code_ ? MakeError(Env(), *code_, error.Message()).Value() : error.Value());
  }

  Napi::Promise::Deferred deferred_;

 private:
  std::optional<ErrorCode> code_;
};

// A PromiseWorker that runs `work` (libuv's pool) and resolves with toJs(env, its result).
template <typename Work, typename ToJs>
class TaskWorker : public PromiseWorker {
 public:
  TaskWorker(Napi::Env env, const char* name, std::optional<ErrorCode> fallback, Work work, ToJs toJs)
      : PromiseWorker(env, name, fallback), work_(std::move(work)), toJs_(std::move(toJs)) {}

 protected:
  void Execute() override {
    Run([&] { result_ = work_(); });
  }
  void OnOK() override {
    try {
      deferred_.Resolve(toJs_(Env(), result_));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

 private:
  Work work_;
  ToJs toJs_;
  std::decay_t<std::invoke_result_t<Work&>> result_{};
};

// A promise of toJs(env, work()), work running on libuv's pool.
template <typename Work, typename ToJs>
Napi::Promise RunTask(Napi::Env env, const char* name, std::optional<ErrorCode> fallback, Work work, ToJs toJs) {
  return (new TaskWorker<Work, ToJs>(env, name, fallback, std::move(work), std::move(toJs)))->Start();
}

// A PromiseWorker (fallback SAWT_ENGINE_ONNX) that runs an ONNX model through its environment's bounded
// queue (onnx_runs.h), on the addon's niced ONNX threads, freeing its place when it settles.
class OnnxRunPromiseWorker : public PromiseWorker {
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
    PromiseWorker::OnWorkComplete(env, status);
  }

 protected:
  OnnxRunPromiseWorker(Napi::Env env, const char* name) : PromiseWorker(env, name, ErrorCode::kOnnx) {}

 private:
  bool background_ = false;
};

// A JS array of `values`, each as Napi::Value::From takes it (numbers, strings), or as f makes it.
template <typename T, typename F = std::nullptr_t>
Napi::Array ToJsArray(Napi::Env env, const std::vector<T>& values, F f = nullptr) {
  Napi::Array a = Napi::Array::New(env, values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_null_pointer_v<F>) {
      a.Set(static_cast<uint32_t>(i), values[i]);
    } else {
      a.Set(static_cast<uint32_t>(i), f(values[i]));
    }
  }
  return a;
}

// A new typed array (Float32Array for float, ...) holding a copy of `values`.
template <typename T>
Napi::TypedArrayOf<T> CopyToJs(Napi::Env env, const std::vector<T>& values) {
  auto a = Napi::TypedArrayOf<T>::New(env, values.size());
  if (!values.empty()) std::memcpy(a.Data(), values.data(), values.size() * sizeof(T));
  return a;
}

// An External that keeps `p`'s object alive until it is collected.
template <typename T>
Napi::External<std::shared_ptr<T>> SharedExternal(Napi::Env env, std::shared_ptr<T> p) {
  return Napi::External<std::shared_ptr<T>>::New(env, new std::shared_ptr<T>(std::move(p)), [](Napi::Env, std::shared_ptr<T>* h) { delete h; });
}

}  // namespace sawt
