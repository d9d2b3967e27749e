// This process's threads, as Linux shows them under /proc/self/task (for tests of the addon's pools).
import { readdirSync, readFileSync } from 'node:fs';

/** The ids of this process's threads named `name` (their comm). */
export function threadsNamed(name) {
  return readdirSync('/proc/self/task').filter((tid) => {
    try { return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === name; } catch { return false; }
  });
}

/** A thread's nice value and CPU seconds (/proc/self/task/<tid>/stat: fields 19, 14 + 15). */
export function threadStat(tid) {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { nice: Number(fields[16]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** Whether a thread runs SCHED_IDLE now (/proc/self/task/<tid>/sched: policy 5). */
export function isIdleThread(tid) {
  return /^policy\s*:\s*5$/m.test(readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'));
}
