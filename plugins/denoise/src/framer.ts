// Cuts one channel into a frame-based denoiser's frames and hides its delay (the first `delay` output samples are
// dropped, the end padded with silence on flush): the output is exactly as long as the input and lines up with it.
import { concatSamples, interleave } from '@sawt/core/typed-arrays';
export class Framer {
  readonly #buf: Float32Array;
  #fill = 0;
  #toSkip: number;
  #in = 0;
  #out = 0;

  constructor(readonly frame: number, delay: number, readonly fn: (frame: Float32Array) => Float32Array | Promise<Float32Array>) {
    this.#buf = new Float32Array(frame);
    this.#toSkip = delay;
  }

  async push(x: Float32Array): Promise<Float32Array> {
    this.#in += x.length;
    const parts: Float32Array[] = [];
    let i = 0;
    while (i < x.length) {
      const n = Math.min(this.frame - this.#fill, x.length - i);
      this.#buf.set(x.subarray(i, i + n), this.#fill);
      this.#fill += n;
      i += n;
      if (this.#fill === this.frame) {
        this.#fill = 0;
        this.#emit(await this.fn(this.#buf), parts);
      }
    }
    return concat(parts);
  }

  /** The rest of the output: pads with silence until the output is as long as the input. */
  async flush(): Promise<Float32Array> {
    const parts: Float32Array[] = [];
    let guard = 0;
    while (this.#out < this.#in && guard++ < 1000) {
      this.#buf.fill(0, this.#fill);
      this.#fill = 0;
      this.#emit(await this.fn(this.#buf), parts);
    }
    return concat(parts);
  }

  #emit(y: Float32Array, parts: Float32Array[]): void {
    let s = 0;
    if (this.#toSkip > 0) {
      s = Math.min(this.#toSkip, y.length);
      this.#toSkip -= s;
    }
    const n = Math.min(y.length - s, this.#in - this.#out);
    if (n <= 0) return;
    parts.push(y.slice(s, s + n));
    this.#out += n;
  }
}

function concat(parts: Float32Array[]): Float32Array {
  return parts.length === 1 ? parts[0]! : concatSamples(parts, new Float32Array(0));
}

/** Runs one Framer per channel over interleaved samples. */
export class MultiChannelFramer {
  readonly #framers: Framer[];
  constructor(readonly channels: number, make: () => Framer) {
    this.#framers = Array.from({ length: channels }, make);
  }

  push(x: Float32Array): Promise<Float32Array> {
    return this.#run((f, c) => f.push(deinterleave(x, this.channels, c)));
  }

  flush(): Promise<Float32Array> {
    return this.#run((f) => f.flush());
  }

  async #run(step: (f: Framer, c: number) => Promise<Float32Array>): Promise<Float32Array> {
    const C = this.channels;
    const outs: Float32Array[] = [];
    for (let c = 0; c < C; c++) outs.push(await step(this.#framers[c]!, c));
    return interleave(outs);
  }
}

/** Channel `c` of `C` interleaved channels (`x` itself when mono). */
export function deinterleave(x: Float32Array, C: number, c: number): Float32Array {
  if (C === 1) return x;
  const n = Math.floor(x.length / C);
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) y[i] = x[i * C + c]!;
  return y;
}
