// Threads whose work can always wait (espeak's later segments: their audio is far ahead of
// playback) run as SCHED_IDLE: any other thread that wakes takes their core at once, where a nice
// value only weighs shares (with 30 sessions on 2 cores the JavaScript thread waited up to 27 ms
// for a core held by nice-12 espeak threads). An idle thread is preempted at any instant, also
// while it holds a lock the JavaScript thread needs (its job's stream and outbox locks, the
// pool's): so it leaves the idle policy for as long as it holds such locks (HoldingSharedLocks).
// Leaving it takes the right to raise a thread's priority (CAP_SYS_NICE or RLIMIT_NICE); a process
// without it does not enter it either, and keeps the nice value alone.
#pragma once

namespace sawt::idle_priority {

// The calling thread, already at its nice value: runs SCHED_IDLE from now on when it may leave it
// again; returns whether it does.
bool EnterIdle();

// For its lifetime, the calling thread runs at its nice value under the normal policy, if it is
// an idle thread (a no-op on any other thread, and inside another holder). Also what keeps an idle
// pool's work from starving (PriorityPool: a task that barely got a core has the next one run so).
class HoldingSharedLocks {
 public:
  HoldingSharedLocks();
  ~HoldingSharedLocks();
  HoldingSharedLocks(const HoldingSharedLocks&) = delete;
  HoldingSharedLocks& operator=(const HoldingSharedLocks&) = delete;

 private:
  bool left_;
};

}  // namespace sawt::idle_priority
