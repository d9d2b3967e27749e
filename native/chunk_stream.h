// The streaming plumbing shared by the synthesis jobs (espeak and HTS): the outbox carrying their
// ChunkMessages to onEvent (through the EventPump), credit-based backpressure (at most maxQueuedChunks
// in the outbox, a backlog beyond), pause, resume, parking, cancellation and the final event. A job
// derives from ChunkStream, makes the audio and queues its next turn on its pool (QueueTurn).
// Threads: Pause/Resume/Cancel from any thread, OnDelivered from the main thread; everything else
// runs on the job's producing thread, one turn at a time.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "chunk_event.h"
#include "errors.h"
#include "event_pump.h"

namespace sawt {

class ChunkStream : public PumpedSource {
 public:
  // Main thread: opens the job's events to onEvent and queues its first turn.
  static void Start(Napi::Env env, Napi::Function onEvent, const std::shared_ptr<ChunkStream>& self) {
    OpenEvents(env, onEvent, self);
    self->QueueTurn();
  }

  // Any thread.
  void Pause() {
    Update([&] { paused_ = true; });
  }
  void Resume() {
    Update([&] { paused_ = false; });
  }
  void Cancel() {
    Update([&] { cancelled_ = true; });
  }

  // Main thread: a queued chunk reached JS, which frees one unit of credit.
  void OnDelivered() {
    Update([&] { --queued_; });
  }

 protected:
  // `failureCode`: the code of a failure that is not an EngineFailure (the engine's own).
  ChunkStream(int maxQueuedChunks, ErrorCode failureCode) : failureCode_(failureCode), maxQueuedChunks_(maxQueuedChunks) {}

  // Main thread. The pump holds a reference to the job until its final event
  // is delivered, or the environment is torn down.
  static void OpenEvents(Napi::Env env, Napi::Function onEvent, const std::shared_ptr<ChunkStream>& self);

  // PumpedSource, main thread: every message of the outbox to onEvent, in order.
  bool Deliver(Napi::Env env, const Napi::Function& onEvent) override;
  void Abandon() override;

  // Queues the job's next turn (RunTurn): after a turn that made audio, and when a parked job gets
  // credit back or is cancelled. Any thread.
  virtual void QueueTurn() = 0;

  // The producing thread: one turn — send what waits, `produce` one piece of audio (false: the stream
  // ends), queue the next turn. A failure ends the stream with an error event (other than an
  // EngineFailure: `failure` + what(), under failureCode_).
  template <typename Produce>
  void RunTurn(const char* failure, Produce produce) {
    try {
      if (!SendBacklog()) return;  // parked until credit returns
      if (Cancelled()) return Finish(ErrorCode::kCancelled, "Synthesis was cancelled");
      if (!produce()) return Finish();
      if (Cancelled()) return Finish(ErrorCode::kCancelled, "Synthesis was cancelled");
      QueueTurn();  // back of the line
    } catch (const EngineFailure& e) {
      Finish(e.code(), e.what());
    } catch (const std::exception& e) {
      Finish(failureCode_, std::string(failure) + e.what());
    }
  }

  bool Cancelled();

  // The first `count` samples of `ready` as a chunk of segment_ (a copy: `ready`
  // keeps its capacity for the next chunks of this job).
  std::unique_ptr<ChunkMessage> TakeChunk(std::vector<int16_t>& ready, size_t count, bool segmentEnd);

  // Sends `message` at once when credit allows and nothing waits before it, else
  // keeps it in the backlog; never blocks (espeak calls it under its lock, which
  // other jobs wait for). Dropped when the job is cancelled.
  void Send(std::unique_ptr<ChunkMessage> message);

  // Sends the final event (an error when `error` is set).
  void Finish(std::optional<ErrorCode> error = std::nullopt, const std::string& message = "");

  int segment_ = 0;  // producing thread only: the segment being made (also the final event's)

 private:
  template <typename F>
  void Update(F change) {
    bool wake = false;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      change();
      if (parked_ && (cancelled_ || HasCredit())) {
        parked_ = false;
        wake = true;
      }
    }
    if (wake) QueueTurn();
  }

  bool HasCredit() const { return !paused_ && queued_ < maxQueuedChunks_; }

  // Sends every waiting chunk that credit allows; parks the job and returns
  // false when credit runs out first.
  bool SendBacklog();

  // Caller counted the message in queued_. The message joins the outbox; the pump is woken
  // only when no wake is pending already.
  void Dispatch(std::unique_ptr<ChunkMessage> message);

  // Main thread: the messages of the outbox, oldest first (and no wake pending any more).
  std::deque<std::unique_ptr<ChunkMessage>> TakeOutbox();

  const ErrorCode failureCode_;
  const int maxQueuedChunks_;

  std::shared_ptr<EventPump> pump_;  // set on the main thread before the first turn

  // Messages sent and not yet handed to JS, and whether a wake of the pump is pending for them
  // (one wake carries all that waits). Never held while the pump is woken.
  std::mutex outboxMutex_;
  std::deque<std::unique_ptr<ChunkMessage>> outbox_;
  bool wakePending_ = false;

  std::mutex mutex_;  // guards the fields below
  bool paused_ = false;
  bool cancelled_ = false;
  bool parked_ = false;  // waiting for credit, not queued for a turn
  int queued_ = 0;  // chunks in the outbox not yet handed to JS
  std::deque<std::unique_ptr<ChunkMessage>> backlog_;  // ready, waiting for credit
};

// Main thread: the JS handle of a job, { pause(), resume(), cancel() }. Each
// method keeps the job alive for as long as JS holds it.
Napi::Object JobHandle(Napi::Env env, const std::shared_ptr<ChunkStream>& stream);

}  // namespace sawt
