// The ONNX runs of one environment (every OnnxRunPromiseWorker): at most pools::kMaxConcurrentOnnxRuns
// at once on its PriorityPool (pools::OnnxRuns), the rest waiting here in arrival order; background runs
// (a long-form job's) take none of those slots but have a pool of their own (pools::OnnxBackground).
// Threads: Queue and Finished on the environment's JavaScript thread. A run's result reaches it through
// a thread-safe function of its own, which holds the event loop open until the run is settled. Destroyed
// at environment teardown (AddonState), joining the pool's threads once every run's thread let go of its channel.
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
