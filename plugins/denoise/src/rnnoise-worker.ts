// Worker thread: RNNoise (synchronous WASM) over interleaved float samples in [-1, 1] at 48 kHz, one state per channel.
// Messages: {id, samples} → {id, samples}; {id, flush: true} → the tail; errors come back as {id, error}.
import { parentPort, workerData } from 'node:worker_threads';
import RNNoise from '@echogarden/rnnoise-wasm';
import { Framer, MultiChannelFramer } from './framer.js';

const FRAME = 480;
/** RNNoise's output lags its input by one frame. */
const DELAY = 480;

const { channels } = workerData as { channels: number };
const m = await RNNoise();
const io = m._malloc(FRAME * 4);
const states: number[] = [];
const framer = new MultiChannelFramer(channels, () => {
  const st = m._rnnoise_create(0);
  states.push(st);
  const out = new Float32Array(FRAME);
  return new Framer(FRAME, DELAY, (frame) => {
    const heap = m.HEAPF32;
    const base = io >> 2;
    for (let i = 0; i < FRAME; i++) heap[base + i] = frame[i]! * 32768;
    m._rnnoise_process_frame(st, io, io);
    const h = m.HEAPF32;
    for (let i = 0; i < FRAME; i++) out[i] = h[base + i]! / 32768;
    return out;
  });
});

let queue = Promise.resolve();
parentPort!.on('message', (msg: { id: number; samples?: Float32Array; flush?: boolean }) => {
  queue = queue.then(async () => {
    try {
      const y = msg.flush ? await framer.flush() : await framer.push(msg.samples!);
      parentPort!.postMessage({ id: msg.id, samples: y }, [y.buffer as ArrayBuffer]);
    } catch (e) {
      parentPort!.postMessage({ id: msg.id, error: (e as Error).message });
    }
  });
});
parentPort!.postMessage({ ready: true });
