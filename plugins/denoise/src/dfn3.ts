// DeepFilterNet3: the native model (one set of sessions per process, shared by every job), a stream per channel.
import { Dfn3Model, type Dfn3Files, type Dfn3Options } from '@sawt/native';
import type { Denoiser, DenoiseSession } from './denoisers.js';
import { deinterleave } from './framer.js';
import { interleave } from '@sawt/core/typed-arrays';

export { DFN3_FILES, type Dfn3Files, type Dfn3Options } from '@sawt/native';

export class Dfn3Denoiser implements Denoiser {
  readonly name = 'dfn3';
  readonly sampleRate = 48000;

  private constructor(readonly model: Dfn3Model) {}

  /** Loads the three models (absolute paths). */
  static async load(files: Dfn3Files, options: Dfn3Options = {}): Promise<Dfn3Denoiser> {
    return new Dfn3Denoiser(await Dfn3Model.load(files, options));
  }

  async open(channels: number): Promise<DenoiseSession> {
    const streams = Array.from({ length: channels }, () => this.model.openStream());
    const run = async (x: Float32Array, flush: boolean): Promise<Float32Array> => {
      if (channels === 1) return streams[0]!.process(x, flush);
      const outs = await Promise.all(streams.map((s, c) => s.process(deinterleave(x, channels, c), flush)));
      // Every channel has seen as many samples, so each returns as many.
      return interleave(outs);
    };
    return { process: (x) => run(x, false), flush: () => run(new Float32Array(0), true), close: () => {} };
  }
}
