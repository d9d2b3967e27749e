#include "idle_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace sawt::idle_priority {
namespace {

thread_local bool tIdle = false;

bool SetPolicy(int policy) {
  const sched_param param{};
  return sched_setscheduler(0, policy, &param) == 0;  // 0: the calling thread
}

// Whether the calling thread may lower its nice value by one (what leaving SCHED_IDLE is checked
// against); the value is put back.
bool MayRaisePriority() {
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, tid);
  if (errno != 0 || nice <= -20) return false;
  if (setpriority(PRIO_PROCESS, tid, nice - 1) != 0) return false;
  setpriority(PRIO_PROCESS, tid, nice);
  return true;
}

}  // namespace

bool EnterIdle() {
  tIdle = MayRaisePriority() && SetPolicy(SCHED_IDLE);
  return tIdle;
}

// While left, the thread counts as not idle, so a nested holder changes nothing.
HoldingSharedLocks::HoldingSharedLocks() : left_(tIdle && SetPolicy(SCHED_OTHER)) {
  if (left_) tIdle = false;
}

HoldingSharedLocks::~HoldingSharedLocks() {
  if (left_ && SetPolicy(SCHED_IDLE)) tIdle = true;
}

}  // namespace sawt::idle_priority
