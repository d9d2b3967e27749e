import { loadBinding } from './load.js';
import { int16Array, sampleRate } from './validate.js';

export interface NativeResampler {
  process(samples: Int16Array): Int16Array;
  /** Returns the tail and resets the resampler for a new stream. */
  flush(): Int16Array;
}

/** The resampler class of the addon (resampler_binding.cc). */
export interface ResamplerBinding {
  Resampler: new (inRate: number, outRate: number) => NativeResampler;
}

/**
 * Streaming band-limited resampler (libsoxr, SOXR_HQ: the same C++ class the
 * synthesis paths use). Feeding input in pieces gives exactly the output of
 * feeding it at once; flush() returns the tail and readies it for a new stream.
 */
export class Resampler {
  readonly inRate: number;
  readonly outRate: number;
  readonly #native: NativeResampler;

  constructor(inRate: number, outRate: number) {
    this.inRate = sampleRate('inRate', inRate);
    this.outRate = sampleRate('outRate', outRate);
    this.#native = new (loadBinding<ResamplerBinding>().Resampler)(this.inRate, this.outRate);
  }

  process(samples: Int16Array): Int16Array {
    return this.#native.process(int16Array('samples', samples));
  }

  flush(): Int16Array {
    return this.#native.flush();
  }
}

/** One-shot conversion; the result has ceil(samples.length * outRate / inRate) samples. */
export function resample(samples: Int16Array, inRate: number, outRate: number): Int16Array {
  const resampler = new Resampler(inRate, outRate);
  const body = resampler.process(samples);
  const tail = resampler.flush();
  const out = new Int16Array(body.length + tail.length);
  out.set(body);
  out.set(tail, body.length);
  return out;
}
