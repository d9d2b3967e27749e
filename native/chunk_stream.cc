#include "chunk_stream.h"

#include <algorithm>
#include <utility>

#include "idle_priority.h"

namespace sawt {

void ChunkStream::OpenEvents(Napi::Env env, Napi::Function onEvent, const std::shared_ptr<ChunkStream>& self) {
  self->pump_ = EventPump::Of(env);
  self->pump_->Open(self, onEvent);
}

bool ChunkStream::Cancelled() {
  std::lock_guard<std::mutex> guard(mutex_);
  return cancelled_;
}

std::unique_ptr<ChunkMessage> ChunkStream::TakeChunk(std::vector<int16_t>& ready, size_t count, bool segmentEnd) {
  auto message = std::make_unique<ChunkMessage>();
  message->segment = segment_;
  message->segmentEnd = segmentEnd;
  message->samples = std::make_unique<PcmChunk>(count);
  std::copy(ready.begin(), ready.begin() + count, message->samples->data());
  ready.erase(ready.begin(), ready.begin() + count);
  return message;
}

void ChunkStream::Send(std::unique_ptr<ChunkMessage> message) {
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the outbox's locks
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (cancelled_) return;
    if (!backlog_.empty() || !HasCredit()) {
      backlog_.push_back(std::move(message));
      return;
    }
    ++queued_;
  }
  Dispatch(std::move(message));
}

bool ChunkStream::SendBacklog() {
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the outbox's locks
  while (true) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (cancelled_) {
        backlog_.clear();
        return true;
      }
      if (!HasCredit()) {
        parked_ = true;
        return false;
      }
      if (backlog_.empty()) return true;
      ++queued_;
    }
    std::unique_ptr<ChunkMessage> message = std::move(backlog_.front());
    backlog_.pop_front();
    Dispatch(std::move(message));
  }
}

void ChunkStream::Dispatch(std::unique_ptr<ChunkMessage> message) {
  bool wake;
  {
    std::lock_guard<std::mutex> guard(outboxMutex_);
    outbox_.push_back(std::move(message));
    wake = !wakePending_;
    wakePending_ = true;
  }
  if (wake && !pump_->Post(this)) Abandon();  // the environment is gone
}

std::deque<std::unique_ptr<ChunkMessage>> ChunkStream::TakeOutbox() {
  std::deque<std::unique_ptr<ChunkMessage>> taken;
  std::lock_guard<std::mutex> guard(outboxMutex_);
  taken.swap(outbox_);
  wakePending_ = false;
  return taken;
}

void ChunkStream::Abandon() {
  {
    std::lock_guard<std::mutex> guard(outboxMutex_);
    outbox_.clear();
  }
  Cancel();
}

void ChunkStream::Finish(std::optional<ErrorCode> error, const std::string& message) {
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the outbox's locks
  auto final = std::make_unique<ChunkMessage>();
  final->final = true;
  final->segment = std::max(0, segment_);
  if (error) {
    final->failed = true;
    final->errorCode = *error;
    final->errorMessage = message;
  }
  {
    std::lock_guard<std::mutex> guard(mutex_);
    backlog_.clear();
  }
  Dispatch(std::move(final));
}

// Main thread.
bool ChunkStream::Deliver(Napi::Env env, const Napi::Function& onEvent) {
  for (auto& message : TakeOutbox()) {
    if (message->samples) OnDelivered();
    CallOnEvent(env, onEvent, *message);
    // onEvent threw (a bug): the exception surfaces as uncaught, and delivery goes on.
    if (env.IsExceptionPending()) napi_fatal_exception(env, env.GetAndClearPendingException().Value());
    if (message->final) return true;
  }
  return false;
}

Napi::Object JobHandle(Napi::Env env, const std::shared_ptr<ChunkStream>& stream) {
  Napi::Object handle = Napi::Object::New(env);
  handle.Set("pause", Napi::Function::New(
                          env, [stream](const Napi::CallbackInfo&) { stream->Pause(); }, "pause"));
  handle.Set("resume", Napi::Function::New(
                           env, [stream](const Napi::CallbackInfo&) { stream->Resume(); }, "resume"));
  handle.Set("cancel", Napi::Function::New(
                           env, [stream](const Napi::CallbackInfo&) { stream->Cancel(); }, "cancel"));
  return handle;
}

}  // namespace sawt
