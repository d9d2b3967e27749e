import { loadBinding } from './load.js';
import { sampleRate } from './validate.js';

/** What the native encoder writes (one channel, PCM16 input). */
export type EncoderCodec = 'pcm' | 'ulaw' | 'alaw' | 'mp3' | 'opus' | 'flac';

const CODECS: readonly EncoderCodec[] = ['pcm', 'ulaw', 'alaw', 'mp3', 'opus', 'flac'];

/** The native class (encoders_binding.cc). */
export interface NativeAudioEncoder {
  push(samples: Int16Array): Promise<Buffer>;
  drain(): Promise<Buffer>;
  end(): Promise<Buffer>;
}

export interface EncoderBinding {
  AudioEncoder: new (codec: string, inRate: number, outRate: number, bitrate: number) => NativeAudioEncoder;
}

/**
 * One output stream's encoder: PCM16 mono at `inRate` in, resampled by libsoxr to `outRate` and
 * encoded (LAME, libopusenc, libFLAC, G.711). push() gives the bytes that input makes ready,
 * drain() everything so far with the stream going on (frame codecs pad the last frame with
 * silence), end() the stream's last bytes. The work runs on libuv's pool; calls are queued in
 * order, so a caller may push without awaiting.
 */
export class AudioEncoder {
  readonly codec: EncoderCodec;
  readonly inRate: number;
  readonly outRate: number;
  /** Input samples pushed so far. */
  samplesIn = 0;
  readonly #native: NativeAudioEncoder | null;
  #last: Promise<unknown> = Promise.resolve();
  #ended = false;

  constructor(codec: EncoderCodec, inRate: number, outRate: number, bitrate = 0) {
    if (!CODECS.includes(codec)) throw new TypeError(`codec must be one of ${CODECS.join(', ')}`);
    this.codec = codec;
    this.inRate = sampleRate('inRate', inRate);
    this.outRate = sampleRate('outRate', outRate);
    // PCM at its own rate needs no native call.
    const identity = codec === 'pcm' && inRate === outRate;
    this.#native = identity ? null : new (loadBinding<EncoderBinding>().AudioEncoder)(codec, this.inRate, this.outRate, bitrate);
  }

  /** PCM16 LE bytes (a Buffer of whole samples) or samples. */
  push(pcm: Buffer | Int16Array): Promise<Buffer> {
    if (this.#ended) return Promise.reject(new Error('encoder already ended'));
    const samples = toSamples(pcm);
    this.samplesIn += samples.length;
    if (!this.#native) return this.#queue(async () => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    const native = this.#native;
    return this.#queue(() => native.push(samples));
  }

  drain(): Promise<Buffer> {
    if (this.#ended) return Promise.reject(new Error('encoder already ended'));
    const native = this.#native;
    return this.#queue(() => (native ? native.drain() : Promise.resolve(Buffer.alloc(0))));
  }

  end(): Promise<Buffer> {
    if (this.#ended) return Promise.resolve(Buffer.alloc(0));
    this.#ended = true;
    const native = this.#native;
    return this.#queue(() => (native ? native.end() : Promise.resolve(Buffer.alloc(0))));
  }

  #queue(work: () => Promise<Buffer>): Promise<Buffer> {
    const p = this.#last.then(work, work);
    this.#last = p.catch(() => {});
    return p;
  }
}

function toSamples(pcm: Buffer | Int16Array): Int16Array {
  if (pcm instanceof Int16Array) return pcm;
  if (pcm.length % 2 !== 0) throw new RangeError('PCM16 input must be whole samples (an even byte count)');
  if (pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
  const copy = new Int16Array(pcm.length / 2);
  Buffer.from(copy.buffer).set(pcm);
  return copy;
}
