// The ONNX runs of one environment (every OnnxRunPromiseWorker: OnnxSession.run, Piper, a DFN3
// window): at most pools::kMaxConcurrentOnnxRuns at once, on that environment's PriorityPool
// (pools::OnnxRuns, started at the first run), the rest waiting here in arrival order.
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
  // Starts the worker's run when fewer than kMaxConcurrentOnnxRuns run, else queues it.
  void Queue(OnnxRunPromiseWorker* worker);
  // A started run settled (its worker calls this once): the next waiting run starts.
  void Finished();

 private:
  void Start(OnnxRunPromiseWorker* worker);

  int active_ = 0;
  std::deque<OnnxRunPromiseWorker*> waiting_;
  std::unique_ptr<PriorityPool> pool_;
};

}  // namespace sawt
