#include "onnx_runs.h"

#include <condition_variable>
#include <memory>
#include <mutex>

#include "promise_worker.h"

namespace sawt {
namespace {

// One ONNX run between its pool thread and the JavaScript thread.
struct OnnxRun {
  OnnxRunPromiseWorker* worker;
  bool settled = false;  // JavaScript thread: the worker settled its promise and deleted itself
  std::mutex mutex;
  std::condition_variable threadDoneWake;
  bool threadDone = false;  // the run's thread no longer uses the channel
  explicit OnnxRun(OnnxRunPromiseWorker* w) : worker(w) {}
};
using OnnxRunHandle = std::shared_ptr<OnnxRun>;

// JavaScript thread: settles a finished run (its promise, its place in OnnxRuns) and deletes its
// worker. env is null when the environment is torn down with the result still queued: the
// channel's finalizer (below) has dealt with the run, and `run` is not used.
void SettleOnnxRun(Napi::Env env, Napi::Function, OnnxRunHandle* run, void*) {
  if (env == nullptr) return;
  (*run)->settled = true;
  (*run)->worker->OnWorkComplete(env, napi_ok);
}

using OnnxRunChannel = Napi::TypedThreadSafeFunction<OnnxRunHandle, void, SettleOnnxRun>;

// JavaScript thread, when the channel is destroyed: once the run is settled, or at environment
// teardown with the run unsettled (maybe still running: this waits for its thread to let go of the
// channel, as Node-API requires, and deletes the worker, whose promise nobody can await any more).
void CloseOnnxRunChannel(Napi::Env, void*, OnnxRunHandle* run) {
  std::unique_ptr<OnnxRunHandle> owned(run);
  OnnxRun& r = **run;
  {
    std::unique_lock<std::mutex> guard(r.mutex);
    r.threadDoneWake.wait(guard, [&] { return r.threadDone; });
  }
  if (!r.settled) delete r.worker;
}

// A pool thread: the run, then its result to the JavaScript thread.
void ExecuteOnnxRun(OnnxRun& run, OnnxRunChannel& channel) {
  run.worker->ExecuteOnRunThread();
  // napi_closing: the environment is being torn down; the channel must not be used again.
  if (channel.BlockingCall() != napi_closing) channel.Release();
  {
    std::lock_guard<std::mutex> guard(run.mutex);
    run.threadDone = true;
  }
  run.threadDoneWake.notify_all();
}

}  // namespace

void OnnxRuns::Queue(OnnxRunPromiseWorker* worker, bool background) {
  if (background) {
    if (!backgroundPool_) backgroundPool_ = std::make_unique<PriorityPool>(pools::OnnxBackground());
    Start(worker, *backgroundPool_);
  } else if (active_ < pools::kMaxConcurrentOnnxRuns) {
    Start(worker, Pool());
    ++active_;
  } else {
    waiting_.push_back(worker);
  }
}

void OnnxRuns::Finished(bool background) {
  if (background) return;
  --active_;
  if (waiting_.empty()) return;
  OnnxRunPromiseWorker* next = waiting_.front();
  waiting_.pop_front();
  Start(next, Pool());
  ++active_;
}

PriorityPool& OnnxRuns::Pool() {
  if (!pool_) pool_ = std::make_unique<PriorityPool>(pools::OnnxRuns());
  return *pool_;
}

void OnnxRuns::Start(OnnxRunPromiseWorker* worker, PriorityPool& pool) {
  auto run = std::make_shared<OnnxRun>(worker);
  auto* context = new OnnxRunHandle(run);
  OnnxRunChannel channel;
  try {
    channel = OnnxRunChannel::New(worker->Env(), "sawt.onnx.run", 0, 1, context, CloseOnnxRunChannel);
  } catch (...) {
    delete context;
    throw;
  }
  pool.Submit([run, channel](int slot) mutable { ExecuteOnnxRun(*run, channel); }, false);
}

}  // namespace sawt
