// The ONNX runs of one environment (every OnnxRunPromiseWorker: OnnxSession.run, Piper, a DFN3
// window): at most pools::kMaxConcurrentOnnxRuns at once, on that environment's PriorityPool
// (pools::OnnxRuns, started at the first run), the rest waiting here in arrival order. Background
// runs (a long-form job's) take none of those slots: they queue on a pool of their own
// (pools::OnnxBackground, one lower-priority thread, started at the first of them).
//
// Threads: Queue and Finished on the environment's JavaScript thread. A run's result reaches that
// thread through a thread-safe function of its own, which holds the event loop open until the run
// is settled (as queued libuv work does). Destroyed at environment teardown (AddonState), which
// joins the pool's threads once every started run's thread has let go of its channel.
#pragma once

#include <deque>
#include <memory>

#include "priority_pool.h"

namespace sawt {

class OnnxRunPromiseWorker;  // promise_worker.h

class OnnxRuns {
 public:
  // Starts the worker's run when fewer than kMaxConcurrentOnnxRuns run, else queues it; a
  // background run goes to the background pool's queue.
  void Queue(OnnxRunPromiseWorker* worker, bool background);
  // A started run settled (its worker calls this once): the next waiting run starts.
  void Finished(bool background);

 private:
  void Start(OnnxRunPromiseWorker* worker, PriorityPool& pool);
  PriorityPool& Pool();

  int active_ = 0;
  std::deque<OnnxRunPromiseWorker*> waiting_;
  std::unique_ptr<PriorityPool> pool_, backgroundPool_;
};

}  // namespace sawt
