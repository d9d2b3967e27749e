// The one thread-pool type of the addon (phonemize, espeak synthesis, HTS, ONNX runs), each pool's
// settings in priority_pool.cc with the measurement behind them. Rules: urgent tasks (a request's first
// audio) are taken before later ones; within a queue, tasks run in the order they were submitted; with
// split lanes, a later task may wait (YieldToUrgent, at most laterYield) while urgent tasks are queued
// or running. test/native/priority-pool.test.js checks each rule through the test export poolOrder
// (addon.cc). Threads: Submit from any thread; a task runs on one of the pool's named threads. A pool
// made for the whole process is never destroyed; one owned by an environment (AddonState) is destroyed
// at its teardown, after its queued tasks have run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sawt {

class PriorityPool {
 public:
  // A task gets its thread's slot (0..slots-1); with split lanes, a slot's two threads share it
  // (e.g. one espeak-ng instance).
  using Task = std::function<void(int slot)>;

  struct Settings {
    const char* name;  // of its threads (at most 15 characters; /proc/self/task/<tid>/comm)
    int slots = 1;  // threads, or pairs of threads with split lanes
    // false: each thread takes urgent tasks first, then later ones. true: per slot, one thread takes
    // only urgent tasks and one only later ones; those run at laterNice (SCHED_IDLE too when
    // laterIdle) and YieldToUrgent holds them back for at most laterYield.
    bool splitLanes = false;
    int nice = 0;  // added to the nice value of the thread that makes the pool (at most 19)
    int laterNice = 0;
    bool laterIdle = false;
    bool idle = false;  // without split lanes: every thread SCHED_IDLE where the process may (idle_priority.h)
    std::chrono::milliseconds laterYield{0};
  };

  // `onThreadStart` runs on each new thread (set up, named and niced) before its first task.
  explicit PriorityPool(const Settings& settings, std::function<void(int slot)> onThreadStart = nullptr);
  ~PriorityPool();  // lets the queued tasks run, then joins the threads
  PriorityPool(const PriorityPool&) = delete;
  PriorityPool& operator=(const PriorityPool&) = delete;

  // Any thread.
  void Submit(Task task, bool urgent);

  // A task's thread: on a later-lane thread, waits (at most laterYield) until no urgent task is
  // queued or running; elsewhere, returns at once.
  void YieldToUrgent();

 private:
  enum class Lane { kBoth,
                    kUrgent,
                    kLater };
  void Loop(int slot, Lane lane, const std::function<void(int slot)>& onThreadStart);

  const Settings settings_;
  std::mutex mutex_;
  std::condition_variable urgentWake_, laterWake_, urgentDone_;
  std::deque<Task> urgent_, later_;
  size_t urgentPending_ = 0;  // urgent tasks queued or running
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The calling thread: `name` (at most 15 characters; /proc/self/task/<tid>/comm), and a nice value
// `nice` above the one it was born with (a thread inherits its creator's).
void SetUpThread(const char* name, int nice);

// The settings of each pool of the addon, with what measured them (priority_pool.cc).
namespace pools {
PriorityPool::Settings Phonemize();
PriorityPool::Settings EspeakSynthesis();
PriorityPool::Settings Hts(int threads, bool background);
PriorityPool::Settings OnnxRuns();
PriorityPool::Settings OnnxBackground();
// At most this many ONNX runs of one environment at once (its pool's threads).
constexpr int kMaxConcurrentOnnxRuns = 2;
}  // namespace pools

}  // namespace sawt
