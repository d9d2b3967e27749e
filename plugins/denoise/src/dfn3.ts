// DeepFilterNet3 (48 kHz full-band speech enhancement) run by the native engine:
// STFT, ERB and complex features, ERB gains, deep filter and overlap-add are in
// C++ (native/dfn3.cc) and the three ONNX models run there on libuv's pool, in
// windows of frames (bounded memory). One set of sessions per process, shared
// by every job; one native stream per channel, stateful across calls. The
// native stream hides the STFT delay: after flush the output is exactly as long
// as the input and lines up with it.
import { nativeAddon } from '@sawt/plugin-engine';
import type { Denoiser, DenoiseSession } from './denoisers.js';

/** The three models, by the names of the model directory (`denoise/dfn3/` in the models layout). */
export const DFN3_FILES = { enc: 'enc.onnx', erbDec: 'erb_dec.onnx', dfDec: 'df_dec.onnx' } as const;
export type Dfn3Files = Record<keyof typeof DFN3_FILES, string>;

export interface Dfn3Options {
  /** ONNX Runtime threads per model run; default 1 (faster than 2 on a 2-core machine). */
  intraOpThreads?: number;
  /** 'cuda': ONNX Runtime's CUDA execution provider; load rejects (SAWT_ENGINE_CUDA_UNAVAILABLE) naming what is missing. Default 'cpu'. */
  executionProvider?: 'cpu' | 'cuda';
  /** Frames (10 ms each) emitted per model window; default 1000. */
  blockFrames?: number;
  /** Frames of already emitted audio re-run before a window (recurrent warm-up); default 100. */
  contextFrames?: number;
}

type Handle = object;
interface Dfn3Native {
  dfn3Load(files: Dfn3Files, options?: Dfn3Options): Promise<Handle>;
  dfn3Open(model: Handle): Handle;
  dfn3Process(stream: Handle, samples: Float32Array, flush: boolean): Promise<Float32Array>;
}

const native = () => nativeAddon() as unknown as Dfn3Native;

export class Dfn3Denoiser implements Denoiser {
  readonly name = 'dfn3';
  readonly sampleRate = 48000;

  private constructor(readonly model: Handle) {}

  /** Loads the three models (absolute paths). */
  static async load(files: Dfn3Files, options: Dfn3Options = {}): Promise<Dfn3Denoiser> {
    return new Dfn3Denoiser(await native().dfn3Load(files, options));
  }

  async open(channels: number): Promise<DenoiseSession> {
    const n = native();
    const streams = Array.from({ length: channels }, () => n.dfn3Open(this.model));
    const run = async (x: Float32Array, flush: boolean): Promise<Float32Array> => {
      const C = channels;
      if (C === 1) return n.dfn3Process(streams[0]!, x, flush);
      const frames = Math.floor(x.length / C);
      const outs = await Promise.all(streams.map((s, c) => {
        const ch = new Float32Array(frames);
        for (let i = 0; i < frames; i++) ch[i] = x[i * C + c]!;
        return n.dfn3Process(s, ch, flush);
      }));
      // Every channel has seen as many samples, so each returns as many.
      const len = outs[0]!.length;
      const y = new Float32Array(len * C);
      for (let c = 0; c < C; c++) {
        const o = outs[c]!;
        for (let i = 0; i < len; i++) y[i * C + c] = o[i]!;
      }
      return y;
    };
    return { process: (x) => run(x, false), flush: () => run(new Float32Array(0), true), close: () => {} };
  }
}
