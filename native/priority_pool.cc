#include "priority_pool.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <optional>
#include <utility>

#include "espeak_engine.h"
#include "idle_priority.h"
#include "ort_shared.h"

namespace sawt {

namespace pools {

// Work nobody waits to hear (a long-form job's) where it is not SCHED_IDLE: espeak's later lane, a
// starved idle task (kStarvedShare) and the background ONNX runs.
constexpr int kBackgroundNice = 12;

// Phonemization runs on threads of its own, not on libuv's pool: a call waits for an espeak-ng
// instance, which a synthesis holds for a whole segment, and on a pool thread that wait held the
// pool (4 threads) from database queries, model runs and file reads queued behind it (with 10
// dialect sessions, dozens of clause calls). One thread per instance (no more could run at once);
// urgent calls (a request's first segment) go ahead of the others.
PriorityPool::Settings Phonemize() { return {"sawt-phonemize", espeak::Instances()}; }

// Two threads per espeak-ng instance (espeak runs one call at a time per instance, so more threads
// would add no throughput; a thread per job also made RSS creep up, each new thread drawing on
// another glibc arena): one for first segments, one for later ones, taking turns on the instance's
// lock, so a first segment waits for at most the segment in progress there.
// Synthesis yields to the JavaScript thread when cores are busy: a nice value on these threads
// alone keeps event-loop delay low while audio is still produced far above real time. Later
// segments (audio already far ahead of playback) run lower still: SCHED_IDLE where the process may
// (idle_priority.h), else nice 12. On busy cores they leave the JavaScript thread and the first
// audio of other requests their share; on idle cores neither changes anything.
// laterYield: how long a later segment waits for the first segments queued or in progress before it
// takes an instance's lock anyway. A later segment holds the lock for the whole segment (tens of ms
// on a busy core), so a first segment that queued behind it would wait that long for its first
// audio; the audio before a later segment (its job's earlier segments, a word at least: ~300 ms)
// lasts far longer than this wait. Bounded, so that a steady stream of new requests cannot starve them.
PriorityPool::Settings EspeakSynthesis() {
  PriorityPool::Settings s{"sawt-espeak", espeak::Instances()};
  s.splitLanes = true;
  s.nice = 5;
  s.laterNice = kBackgroundNice;
  s.laterIdle = true;
  s.laterYield = std::chrono::milliseconds(50);
  return s;
}

// `threads` per voice file (the caller's option, default 2), each with an HTS_Engine of its own:
// concurrent requests do not wait behind one lock. Niced like espeak's first segments.
// Background work (a long-form job's parts) has a pool of its own per voice file, like espeak's
// later segments: SCHED_IDLE, else nice 12, and never starved (a task that barely got a core has
// the next run at nice 12: kStarvedShare). On one pool at nice 5, 2 jobs' HTS threads took an equal
// share of the cores from live requests' first audio (bench/jobs-book.js, quiet 2-core machine:
// live HTTP first byte p50 9.5 -> 13.3 ms with 2 jobs running); at nice 12 the p50 held but a
// quarter of live requests still waited 10-15 ms more for a core (p95 ratio 1.89 HTTP, 1.30 WS,
// N=150); SCHED_IDLE: 1.29 / 1.22, and 1.20 / 1.15 over 3 pairs of 80, the jobs rendering
// 218-345 characters/s meanwhile.
PriorityPool::Settings Hts(int threads, bool background) {
  PriorityPool::Settings s{background ? "sawt-hts-bg" : "sawt-hts", threads};
  s.nice = background ? kBackgroundNice : 5;
  s.idle = background;
  return s;
}

// ONNX runs execute on threads of the addon's own (kMaxConcurrentOnnxRuns of them, started at the
// first run, niced: kOnnxThreadNice, ort_shared.h), not on libuv's pool, which fs, dns and crypto
// share and whose threads run at the JavaScript thread's priority.
PriorityPool::Settings OnnxRuns() {
  PriorityPool::Settings s{"sawt-onnx", kMaxConcurrentOnnxRuns};
  s.nice = kOnnxThreadNice;
  return s;
}

// Background runs (a long-form job's diacritizer runs): one thread per environment at
// kBackgroundNice, outside the kMaxConcurrentOnnxRuns slots. Not SCHED_IDLE: a run shares its
// session (and ONNX Runtime's locks, its arena's) with live runs, which an idle thread preempted
// while holding them would hold up. In those slots, FIFO with live runs, 2 jobs'
// diacritizer runs (up to 32 rows of 400 characters each) held both slots while a live request's
// first segment waited behind them (bench/jobs-book.js latency: live first byte p95 up to 1.40 x idle).
PriorityPool::Settings OnnxBackground() {
  PriorityPool::Settings s{"sawt-onnx-bg", 1};
  s.nice = kBackgroundNice;
  return s;
}

}  // namespace pools

// Linux applies PRIO_PROCESS with a thread id to that thread alone.
void SetUpThread(const char* name, int nice) {
  pthread_setname_np(pthread_self(), name);
  if (nice == 0) return;
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int current = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(19, current + nice));
}

namespace {

thread_local bool tLaterLane = false;  // the calling thread is a pool's later-lane thread

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// An idle pool's task that ran on a core less than this share of its wall time (runnable, but the
// cores busy with other work: its tasks never block) has the next task run under the normal policy
// at the thread's nice value, until one gets its core again: background work yields at once to
// anything else, yet is never starved by a steady load, only slowed to its nice value's share.
constexpr double kStarvedShare = 0.25;
constexpr double kStarvedMinSeconds = 0.02;  // shorter tasks say nothing about the cores

}  // namespace

PriorityPool::PriorityPool(const Settings& settings, std::function<void(int slot)> onThreadStart) : settings_(settings) {
  for (int slot = 0; slot < settings_.slots; ++slot) {
    if (!settings_.splitLanes) {
      threads_.emplace_back([this, slot, onThreadStart] { Loop(slot, Lane::kBoth, onThreadStart); });
      continue;
    }
    threads_.emplace_back([this, slot, onThreadStart] { Loop(slot, Lane::kUrgent, onThreadStart); });
    threads_.emplace_back([this, slot, onThreadStart] { Loop(slot, Lane::kLater, onThreadStart); });
  }
}

PriorityPool::~PriorityPool() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  urgentWake_.notify_all();
  laterWake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void PriorityPool::Submit(Task task, bool urgent) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    (urgent ? urgent_ : later_).push_back(std::move(task));
    if (urgent) ++urgentPending_;
  }
  (urgent || !settings_.splitLanes ? urgentWake_ : laterWake_).notify_one();
}

void PriorityPool::YieldToUrgent() {
  if (!tLaterLane) return;
  const idle_priority::HoldingSharedLocks holding;  // the pool's lock (Submit takes it on the JavaScript thread)
  std::unique_lock<std::mutex> guard(mutex_);
  urgentDone_.wait_for(guard, settings_.laterYield, [&] { return urgentPending_ == 0; });
}

void PriorityPool::Loop(int slot, Lane lane, const std::function<void(int slot)>& onThreadStart) {
  const bool later = lane == Lane::kLater;
  SetUpThread(settings_.name, later ? settings_.laterNice : settings_.nice);
  const bool idle = (later ? settings_.laterIdle : (lane == Lane::kBoth && settings_.idle)) && idle_priority::EnterIdle();
  // (a later lane's task may wait in YieldToUrgent, which is not starvation: those keep no guard)
  const bool guarded = idle && !later;
  bool starved = false;
  tLaterLane = later;
  if (onThreadStart) onThreadStart(slot);
  auto& wake = later ? laterWake_ : urgentWake_;
  for (;;) {
    Task task;
    bool urgent;
    {
      const idle_priority::HoldingSharedLocks holding;
      std::unique_lock<std::mutex> guard(mutex_);
      const auto ready = [&] { return (lane != Lane::kLater && !urgent_.empty()) || (lane != Lane::kUrgent && !later_.empty()); };
      wake.wait(guard, [&] { return stopping_ || ready(); });
      if (!ready()) return;  // stopping, nothing left
      urgent = lane != Lane::kLater && !urgent_.empty();
      auto& queue = urgent ? urgent_ : later_;
      task = std::move(queue.front());
      queue.pop_front();
    }
    if (!guarded) {
      task(slot);
    } else {
      std::optional<idle_priority::HoldingSharedLocks> boost;
      if (starved) boost.emplace();
      const auto wall0 = std::chrono::steady_clock::now();
      const double cpu0 = ThreadCpuSeconds();
      task(slot);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      if (wall >= kStarvedMinSeconds) starved = ThreadCpuSeconds() - cpu0 < kStarvedShare * wall;
    }
    if (!urgent) continue;
    bool none;
    {
      const idle_priority::HoldingSharedLocks holding;
      std::lock_guard<std::mutex> guard(mutex_);
      none = --urgentPending_ == 0;
    }
    if (none) urgentDone_.notify_all();
  }
}

}  // namespace sawt
