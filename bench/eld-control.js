// The control of every event-loop figure: a Node process that does nothing but a 1 ms timer,
// started beside the bench server, reset and read with it (IPC 'eld-reset' / 'eld'). Its worst
// delay is what any process on this machine saw in the same seconds (other processes, the
// hypervisor, the server's own threads taking the cores); the server's own part is what it adds.
import { monitorEventLoopDelay } from 'node:perf_hooks';

let eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();
process.on('disconnect', () => process.exit(0));
process.on('message', (msg) => {
  if (msg === 'eld-reset') {
    eld.disable();
    eld = monitorEventLoopDelay({ resolution: 1 });
    eld.enable();
    process.send({ type: 'eld-reset' });
  } else if (msg === 'eld') {
    process.send({ type: 'eld', maxMs: eld.max / 1e6, p99Ms: eld.percentile(99) / 1e6 });
  } else if (msg === 'stop') {
    process.exit(0);
  }
});
process.send({ type: 'ready' });
