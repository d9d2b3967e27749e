// How the synthesis jobs' audio events reach the JavaScript thread: one libuv async handle per
// environment, woken by any producing thread, that hands the waiting events job by job to each
// job's onEvent, a few milliseconds' worth per turn of the event loop.
//
// It replaces a Node-API thread-safe function per job. That one's producer holds the function's
// lock while it wakes the JavaScript thread, which then preempts it (it has the higher priority)
// and waits for that very lock: measured with 30 WebSocket sessions on 2 cores, the JavaScript
// thread slept on it 16,500 times in 20 s, 2 s in all, up to 13 ms at once (a nice-12 producer
// preempted while holding it). Here a producer holds no lock while it wakes the JavaScript
// thread (uv_async_send needs none), and wakes coming while one is pending are one wake.
//
// Threads: Open, and the delivery, on the JavaScript thread; Post from any thread, also after the
// environment is gone (then it drops the wake and returns false).
#pragma once

#include <napi.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "uv_async.h"

namespace sawt {

class EventPump;

// What a job gives the pump: the events waiting to be delivered.
class PumpedSource {
 public:
  virtual ~PumpedSource() = default;
  // JavaScript thread: hands what waits to onEvent; returns true once the last event (the final
  // one) was delivered, and the source is done with the pump.
  virtual bool Deliver(Napi::Env env, const Napi::Function& onEvent) = 0;
  // JavaScript thread, at environment teardown: nothing will be delivered any more.
  virtual void Abandon() = 0;
};

class EventPump : public std::enable_shared_from_this<EventPump> {
 public:
  // JavaScript thread: the environment's pump (created at first use, closed with the environment).
  static std::shared_ptr<EventPump> Of(Napi::Env env);

  // JavaScript thread: `source` will Post; keeps the event loop alive until its last event.
  void Open(const std::shared_ptr<PumpedSource>& source, Napi::Function onEvent);

  // Any thread: `source` has events waiting. False once the environment is gone.
  bool Post(PumpedSource* source);

  ~EventPump();

 private:
  explicit EventPump(Napi::Env env);
  static void OnWake(uv_async_s* handle);
  // Delivers what waits, source by source, until kTurnBudget has passed; the rest goes on in the
  // next turn of the event loop.
  void DeliverReady();
  uv_handle_s* Handle() { return reinterpret_cast<uv_handle_s*>(wake_); }
  static void Close(napi_async_cleanup_hook_handle hook, void* self);

  struct Entry {
    std::shared_ptr<PumpedSource> source;
    Napi::FunctionReference onEvent;
  };

  // How long one turn of the event loop hands out events before timers and I/O get theirs. After
  // a pause (a garbage collection: 5-10 ms while synthesis goes on) every job has chunks waiting;
  // handed out all at once (with what they set off: messages encoded and written) they added
  // 10 ms or more of work to that pause. Core's turnBudget (5 ms a stretch) defers what
  // JavaScript does with the chunks once it awaits it; it cannot split this callback, which runs
  // before any of that JavaScript can wait: hence a bound of the pump's own, below it.
  static constexpr std::chrono::microseconds kTurnBudget{3000};

  napi_env env_;
  uv_async_s* wake_;  // uv_handle_size bytes, freed by its close callback
  std::unique_ptr<Napi::AsyncContext> context_;  // JavaScript thread only
  std::unordered_map<PumpedSource*, Entry> open_;  // JavaScript thread only

  std::mutex readyMutex_;  // held only to add to or take ready_, never while waking
  std::deque<PumpedSource*> ready_;

  std::shared_mutex closeMutex_;  // shared around uv_async_send; exclusive to close
  bool closed_ = false;
};

}  // namespace sawt
