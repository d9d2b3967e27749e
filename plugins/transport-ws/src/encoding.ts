import { playedDelayMs, streamingWavHeader, type OutputFormatSpec } from '@sawt/core';
import { AudioEncoder } from '@sawt/native';

/** A connection's encoder of its output_format, one stream for the whole connection; a flush drains what the codec holds. */
export class ConnectionEncoder {
  readonly rate: number;
  /** Milliseconds a player plays before the audio's first sample (an MP3's encoder and decoder delay): the alignment's offset. */
  readonly playedDelayMs: number;
  readonly #encoder: AudioEncoder;
  #header: Buffer | null;

  constructor(format: OutputFormatSpec, synthesisRate: number) {
    this.rate = format.sampleRate;
    this.playedDelayMs = playedDelayMs(format);
    this.#encoder = new AudioEncoder(format.codec === 'wav' ? 'pcm' : format.codec, synthesisRate, format.sampleRate, format.bitrate ?? 0);
    this.#header = format.codec === 'wav' ? streamingWavHeader(format.sampleRate) : null;
  }

  /** The connection's default (raw PCM at the synthesis rate) needs no encoder. */
  static for(format: OutputFormatSpec, synthesisRate: number): ConnectionEncoder | null {
    return format.codec === 'pcm' && format.sampleRate === synthesisRate ? null : new ConnectionEncoder(format, synthesisRate);
  }

  async encode(pcm: readonly Buffer[], flushEnd: boolean): Promise<Buffer> {
    const parts: Promise<Buffer>[] = pcm.length ? [this.#encoder.push(pcm.length === 1 ? pcm[0]! : Buffer.concat(pcm as Buffer[]))] : [];
    if (flushEnd) parts.push(this.#encoder.drain());
    const bytes = await Promise.all(parts);
    if (this.#header) {
      bytes.unshift(this.#header);
      this.#header = null;
    }
    return bytes.length === 1 ? bytes[0]! : Buffer.concat(bytes);
  }
}
