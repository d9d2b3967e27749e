#include "chunk_stream.h"

#include <algorithm>
#include <utility>

#include "idle_priority.h"

namespace sawt {

void ChunkStream::OpenChannel(Napi::Env env, Napi::Function onEvent, const char* name,
                              const std::shared_ptr<ChunkStream>& self) {
  self->channel_ = EventChannel::New(env, onEvent, name, 0, 1, self.get(), &ChunkStream::OnChannelFinalized,
                                     new std::shared_ptr<ChunkStream>(self));
}

void ChunkStream::OnChannelFinalized(Napi::Env, std::shared_ptr<ChunkStream>* holder, ChunkStream* stream) {
  {
    std::lock_guard<std::mutex> guard(stream->channelMutex_);
    stream->channelGone_ = true;
  }
  stream->Cancel();
  delete holder;
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
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the channel's locks
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
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the channel's locks
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
  bool sent;
  {
    std::lock_guard<std::mutex> guard(channelMutex_);
    sent = !channelGone_ && channel_.NonBlockingCall(message.get()) == napi_ok;
  }
  if (sent) {
    message.release();
  } else {  // the environment is shutting down
    Update([&] { --queued_; cancelled_ = true; });
  }
}

void ChunkStream::Finish(std::optional<ErrorCode> error, const std::string& message) {
  const idle_priority::HoldingSharedLocks holding;  // the stream's and the channel's locks
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
  std::lock_guard<std::mutex> guard(channelMutex_);
  if (channelGone_) return;
  if (channel_.NonBlockingCall(final.get()) == napi_ok) final.release();
  channel_.Release();
  channelGone_ = true;
}

// Main thread.
void DeliverChunkEvent(Napi::Env env, Napi::Function onEvent, ChunkStream* stream, ChunkMessage* raw) {
  std::unique_ptr<ChunkMessage> message(raw);
  // Torn down with the environment: the finalizer may already have freed `stream`.
  if (env == nullptr) return;
  if (message->samples) stream->OnDelivered();
  CallOnEvent(env, onEvent, *message);
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
