// What /proc says of a `sawt serve` primary's workers and of who holds a loopback connection
// (the security tests of worker death and server-wide limits).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The child pids of `pid` (a primary's workers). */
export const childrenOf = (pid) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** The pid (of `pids`) holding the server end of the loopback connection from `clientPort` to `serverPort`, or null. */
export function holderOf(pids, serverPort, clientPort) {
  const hex = (n) => n.toString(16).toUpperCase().padStart(4, '0');
  let inode = null;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1].endsWith(`:${hex(serverPort)}`) && f[2].endsWith(`:${hex(clientPort)}`)) inode = f[9];
    }
  }
  if (!inode) return null;
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}
