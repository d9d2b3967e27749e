#include "event_pump.h"

#include <chrono>
#include <utility>

#include "addon_state.h"

namespace sawt {

std::shared_ptr<EventPump> EventPump::Of(Napi::Env env) {
  std::shared_ptr<EventPump>& pump = AddonState::Of(env).eventPump;
  if (!pump) {
    pump.reset(new EventPump(env));
    // The hook's own reference: the pump outlives the addon's instance data until it has closed.
    auto* held = new std::shared_ptr<EventPump>(pump);
    NAPI_THROW_IF_FAILED_VOID(env, napi_add_async_cleanup_hook(env, &EventPump::Close, held, nullptr));
  }
  return pump;
}

EventPump::EventPump(Napi::Env env)
    : env_(env), wake_(static_cast<uv_async_s*>(::operator new(uv_handle_size(uv::kAsyncHandle)))) {
  uv_loop_s* loop = nullptr;
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_uv_event_loop(env, &loop));
  uv_async_init(loop, wake_, &EventPump::OnWake);
  uv::Data(wake_) = this;
  uv_unref(Handle());  // Open keeps the loop alive while a source is open
  context_ = std::make_unique<Napi::AsyncContext>(env, "SawtAudioEvents");
}

EventPump::~EventPump() = default;

void EventPump::Open(const std::shared_ptr<PumpedSource>& source, Napi::Function onEvent) {
  open_.emplace(source.get(), Entry{source, Napi::Persistent(onEvent)});
  if (open_.size() == 1) uv_ref(Handle());
}

bool EventPump::Post(PumpedSource* source) {
  std::shared_lock<std::shared_mutex> open(closeMutex_);
  if (closed_) return false;
  {
    std::lock_guard<std::mutex> guard(readyMutex_);
    ready_.push_back(source);
  }
  uv_async_send(wake_);  // no lock of the JavaScript thread's is held here
  return true;
}

void EventPump::OnWake(uv_async_s* handle) {
  static_cast<EventPump*>(uv::Data(handle))->DeliverReady();
}

void EventPump::DeliverReady() {
  std::deque<PumpedSource*> ready;
  {
    std::lock_guard<std::mutex> guard(readyMutex_);
    ready.swap(ready_);
  }
  Napi::Env env(env_);
  const auto until = std::chrono::steady_clock::now() + kTurnBudget;
  while (!ready.empty()) {
    PumpedSource* key = ready.front();
    ready.pop_front();
    auto found = open_.find(key);
    if (found == open_.end()) continue;  // done already (posted twice), or a stale wake
    std::shared_ptr<PumpedSource> source = found->second.source;
    bool done;
    {
      Napi::HandleScope perSource(env);
      // Promise reactions and process.nextTick callbacks run when this scope closes, as after
      // any callback from native code: the source's events and what they set off are one piece
      // of work, timed below.
      Napi::CallbackScope callback(env, *context_);
      done = source->Deliver(env, found->second.onEvent.Value());
    }
    // onEvent may have started another job (Open): the entry is looked up again.
    if (done) {
      open_.erase(key);
      if (open_.empty()) uv_unref(Handle());
    }
    if (!ready.empty() && std::chrono::steady_clock::now() >= until) break;
  }
  if (ready.empty()) return;
  // Over the budget: the rest waits for the next turn of the event loop, ahead of anything
  // posted since (they waited longest); timers and I/O run first.
  {
    std::lock_guard<std::mutex> guard(readyMutex_);
    ready_.insert(ready_.begin(), ready.begin(), ready.end());
  }
  uv_async_send(wake_);
}

void EventPump::Close(napi_async_cleanup_hook_handle hook, void* arg) {
  std::unique_ptr<std::shared_ptr<EventPump>> held(static_cast<std::shared_ptr<EventPump>*>(arg));
  EventPump& self = **held;
  {
    std::unique_lock<std::shared_mutex> closing(self.closeMutex_);
    self.closed_ = true;
  }
  for (auto& [key, entry] : self.open_) entry.source->Abandon();
  self.open_.clear();
  self.context_.reset();
  uv::Data(self.wake_) = hook;
  uv_close(self.Handle(), [](uv_handle_s* handle) {
    napi_remove_async_cleanup_hook(static_cast<napi_async_cleanup_hook_handle>(uv::Data(handle)));
    ::operator delete(handle);
  });
}

}  // namespace sawt
