/** Who a running process is (node, pid, boot, start time), so survivors can tell a dead lease owner from a live one. */
import { readFileSync } from 'node:fs';

export interface ProcessOwner {
  /** SAWT_NODE_ID, else the host name: unique per machine (or per container with its own pid namespace). */
  nodeId: string;
  pid: number;
  /** The kernel's boot id (Linux): a pid is only comparable within one boot. */
  bootId: string | null;
  /** Process start time in clock ticks since boot (Linux), telling a reused pid apart. */
  startTicks: number | null;
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Start time of process `pid` (field 22 of /proc/<pid>/stat), or null off Linux / when gone. */
export function startTicksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const v = Number(fields[19]);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

export function currentProcess(nodeId: string): ProcessOwner {
  return { nodeId, pid: process.pid, bootId: readBootId(), startTicks: startTicksOf(process.pid) };
}

/** True only when `owner` ran on this node and boot and its pid is gone or reused; uncertain is false (wait for the lease). */
export function isLocalProcessGone(owner: ProcessOwner, self: ProcessOwner): boolean {
  if (owner.nodeId !== self.nodeId || owner.bootId === null || owner.bootId !== self.bootId) return false;
  if (owner.pid === self.pid) return owner.startTicks !== null && self.startTicks !== null && owner.startTicks !== self.startTicks;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
  // The pid exists: it is the owner unless a later process reused it.
  if (owner.startTicks === null) return false;
  const now = startTicksOf(owner.pid);
  return now !== null && now !== owner.startTicks;
}
