import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** One denoising job: interleaved float samples in [-1, 1] at the denoiser's rate in, as many out. */
export interface DenoiseSession {
  process(samples: Float32Array): Promise<Float32Array>;
  /** The rest of the output; afterwards the output is exactly as long as the input. */
  flush(): Promise<Float32Array>;
  close(): void;
}

export interface Denoiser {
  readonly name: string;
  /** Rate the denoiser works at; audio is resampled to it and back. */
  readonly sampleRate: number;
  open(channels: number): Promise<DenoiseSession>;
  dispose?(): Promise<void> | void;
}

/** RNNoise (embedded WASM), in a worker thread per job so the event loop stays free. */
export class RnnoiseDenoiser implements Denoiser {
  readonly name = 'rnnoise';
  readonly sampleRate = 48000;

  async open(channels: number): Promise<DenoiseSession> {
    const worker = new Worker(new URL('./rnnoise-worker.js', import.meta.url), { workerData: { channels } });
    const pending = new Map<number, { resolve: (x: Float32Array) => void; reject: (e: Error) => void }>();
    let nextId = 0;
    let dead: Error | null = null;
    const failAll = (e: Error) => {
      dead = e;
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    await once(worker, 'message'); // {ready: true}; an 'error' first rejects
    worker.on('message', (m: { id?: number; samples?: Float32Array; error?: string }) => {
      if (m.id === undefined) return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(`rnnoise: ${m.error}`));
      else p.resolve(m.samples!);
    });
    worker.on('error', (e) => failAll(e));
    worker.on('exit', () => failAll(new Error('rnnoise worker stopped')));
    const call = (msg: { samples?: Float32Array; flush?: boolean }, transfer: ArrayBuffer[] = []) =>
      new Promise<Float32Array>((resolve, reject) => {
        if (dead) return reject(dead);
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, ...msg }, transfer);
      });
    return {
      process: (samples) => call({ samples }, [samples.buffer as ArrayBuffer]),
      flush: () => call({ flush: true }),
      close: () => void worker.terminate(),
    };
  }
}
