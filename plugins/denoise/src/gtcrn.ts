// GTCRN (ultra-light streaming speech enhancement, 16 kHz) through the engine's ONNX session: STFT n_fft 512, hop 256,
// sqrt-Hann (periodic) analysis and synthesis windows, overlap-add (Hann at 50 % overlap sums to 1, so no
// normalization). The model sees one frame per run() and carries three state caches, fed back from its `*_out` outputs;
// a streaming model cannot batch frames.
import { OnnxSession, type Tensor } from '@sawt/native';
import type { Denoiser, DenoiseSession } from './denoisers.js';
import { Framer, MultiChannelFramer } from './framer.js';

const N_FFT = 512;
const HOP = 256;
const BINS = N_FFT / 2 + 1;
const CACHES = ['conv_cache', 'tra_cache', 'inter_cache'] as const;

/** Radix-2 complex FFT of size N in place (re, im); `inverse` without the 1/N. */
class Fft {
  readonly #rev: Uint16Array;
  readonly #cos: Float64Array;
  readonly #sin: Float64Array;
  constructor(readonly n: number) {
    const bits = Math.log2(n);
    this.#rev = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.#rev[i] = r;
    }
    this.#cos = new Float64Array(n / 2);
    this.#sin = new Float64Array(n / 2);
    for (let i = 0; i < n / 2; i++) {
      this.#cos[i] = Math.cos((2 * Math.PI * i) / n);
      this.#sin[i] = Math.sin((2 * Math.PI * i) / n);
    }
  }

  run(re: Float64Array, im: Float64Array, inverse: boolean): void {
    const n = this.n;
    const rev = this.#rev;
    for (let i = 0; i < n; i++) {
      const j = rev[i]!;
      if (j > i) {
        let t = re[i]!; re[i] = re[j]!; re[j] = t;
        t = im[i]!; im[i] = im[j]!; im[j] = t;
      }
    }
    const sign = inverse ? 1 : -1;
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          const wr = this.#cos[k * step]!;
          const wi = sign * this.#sin[k * step]!;
          const a = start + k;
          const b = a + half;
          const xr = re[b]! * wr - im[b]! * wi;
          const xi = re[b]! * wi + im[b]! * wr;
          re[b] = re[a]! - xr;
          im[b] = im[a]! - xi;
          re[a] = re[a]! + xr;
          im[a] = im[a]! + xi;
        }
      }
    }
  }
}

const fft = new Fft(N_FFT);
const sqrtHann = Float64Array.from({ length: N_FFT }, (_, i) => Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT)));

/** One channel: HOP new samples in, HOP out, lagging the input by HOP (the Framer hides that delay). */
class GtcrnChannel {
  readonly #frame = new Float64Array(N_FFT); // the last N_FFT input samples (starts as silence)
  readonly #ola = new Float64Array(N_FFT);
  readonly #re = new Float64Array(N_FFT);
  readonly #im = new Float64Array(N_FFT);
  readonly #out = new Float32Array(HOP);
  #caches: Record<string, Tensor>;

  constructor(readonly session: OnnxSession) {
    this.#caches = Object.fromEntries(session.inputs.filter((i) => i.name !== 'mix')
      .map((i) => [i.name, { type: 'float32', dims: i.dims, data: new Float32Array(i.dims.reduce((a, b) => a * b, 1)) } as Tensor]));
  }

  async step(x: Float32Array): Promise<Float32Array> {
    const f = this.#frame, re = this.#re, im = this.#im;
    f.copyWithin(0, HOP);
    for (let i = 0; i < HOP; i++) f[HOP + i] = x[i]!;
    for (let i = 0; i < N_FFT; i++) {
      re[i] = f[i]! * sqrtHann[i]!;
      im[i] = 0;
    }
    fft.run(re, im, false);
    const mix = new Float32Array(BINS * 2); // [1, 257, 1, 2]: (real, imag) per bin
    for (let k = 0; k < BINS; k++) {
      mix[2 * k] = re[k]!;
      mix[2 * k + 1] = im[k]!;
    }
    const out = await this.session.run({ mix: { type: 'float32', dims: [1, BINS, 1, 2], data: mix }, ...this.#caches });
    for (const c of CACHES) this.#caches[c] = out[`${c}_out`]!;
    const enh = out.enh!.data as Float32Array;
    // Hermitian spectrum back to N_FFT bins, inverse FFT, synthesis window, overlap-add.
    for (let k = 0; k < BINS; k++) {
      re[k] = enh[2 * k]!;
      im[k] = enh[2 * k + 1]!;
    }
    im[0] = 0;
    im[BINS - 1] = 0;
    for (let k = BINS; k < N_FFT; k++) {
      re[k] = re[N_FFT - k]!;
      im[k] = -im[N_FFT - k]!;
    }
    fft.run(re, im, true);
    const ola = this.#ola;
    for (let i = 0; i < N_FFT; i++) ola[i] = ola[i]! + (re[i]! / N_FFT) * sqrtHann[i]!;
    this.#out.set(ola.subarray(0, HOP));
    ola.copyWithin(0, HOP);
    ola.fill(0, HOP);
    return this.#out;
  }
}

export class GtcrnDenoiser implements Denoiser {
  readonly name = 'gtcrn';
  readonly sampleRate = 16000;

  private constructor(readonly session: OnnxSession) {}

  /** Loads the model and checks its inputs and outputs against what this code feeds. */
  static async load(modelPath: string): Promise<GtcrnDenoiser> {
    const session = await OnnxSession.create(modelPath, { executionProvider: 'cpu' });
    const want: Record<string, number[]> = { mix: [1, BINS, 1, 2], conv_cache: [2, 1, 16, 16, 33], tra_cache: [2, 3, 1, 1, 16], inter_cache: [2, 1, 33, 16] };
    const shape = (list: readonly { name: string; dims: number[] }[]) => Object.fromEntries(list.map((t) => [t.name, t.dims.join(',')]));
    const ins = shape(session.inputs);
    const outs = shape(session.outputs);
    for (const [name, dims] of Object.entries(want)) {
      const outName = name === 'mix' ? 'enh' : `${name}_out`;
      if (ins[name] !== dims.join(',') || outs[outName] !== dims.join(',')) {
        session.release();
        throw new Error(`denoise: ${modelPath} is not a GTCRN streaming model (want input ${name} and output ${outName} of shape [${dims}])`);
      }
    }
    return new GtcrnDenoiser(session);
  }

  async open(channels: number): Promise<DenoiseSession> {
    const framer = new MultiChannelFramer(channels, () => {
      const ch = new GtcrnChannel(this.session);
      return new Framer(HOP, HOP, (x) => ch.step(x));
    });
    return { process: (x) => framer.push(x), flush: () => framer.flush(), close: () => {} };
  }

  dispose(): void {
    this.session.release();
  }
}
