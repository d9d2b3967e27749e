/**
 * A Piper synthesis as a SpeechStream (`{ pcm, info }` chunks, PCM16LE mono at the requested rate,
 * as the native streams give them). One ONNX run per sentence, in order; the next sentence starts only
 * while the consumer keeps reading (backpressure). Destroying the stream terminates the run in
 * flight and starts no other (client disconnect, cancel).
 *
 * Word timings: Piper's ONNX export has no duration output, so each sentence's speech (its audio
 * less the silence appended after it) is spread over its words in proportion to their length in
 * characters. They are estimates, not the model's alignment.
 */
import { Readable } from 'node:stream';
import { SPEECH_STREAM_OPTIONS, turnBudget, type ChunkInfo, type SpeechChunk, type WordTiming } from '@sawt/core';
import type { PiperSession } from '@sawt/native';
import { phonemeIds } from './phonemes.js';
import type { PiperVoiceConfig } from './voice-config.js';

export interface PiperJob {
  session: PiperSession;
  config: PiperVoiceConfig;
  /** Text pieces in order (the stream's segments), and their phonemes per sentence (started already). */
  pieces: Array<{ text: string; sentences: Promise<string[][]> }>;
  scales: { noiseScale: number; lengthScale: number; noiseW: number };
  sid: number;
  sampleRate: number;
  /** Chunks of about this length (0: one chunk per sentence). */
  chunkMs: number;
  /** Silence after each sentence but the last, ms (pieces split off a sentence get none). */
  silenceMs: (piece: number, sentence: number, last: boolean) => number;
  onMissing: (phonemes: string[]) => void;
}

let nextTag = 1;

interface Word {
  textOffset: number;
  length: number;
}

export class PiperStream extends Readable {
  readonly sampleRate: number;
  readonly #job: PiperJob;
  readonly #tag = nextTag++ % 0xffffffff;
  #started = false;
  #wake: (() => void) | null = null;

  constructor(job: PiperJob) {
    super(SPEECH_STREAM_OPTIONS);
    this.#job = job;
    this.sampleRate = job.sampleRate;
    // Rejections are handled where each is awaited; this keeps an early one from being unhandled.
    for (const p of job.pieces) p.sentences.catch(() => {});
  }

  override _read(): void {
    if (!this.#started) {
      this.#started = true;
      this.#pump().catch((error: unknown) => {
        if (!this.destroyed) this.destroy(error as Error);
      });
      return;
    }
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#job.session.cancel(this.#tag);
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
    callback(error);
  }

  async #pump(): Promise<void> {
    const job = this.#job;
    for (let p = 0; p < job.pieces.length; p++) {
      const piece = job.pieces[p]!;
      const sentences = await piece.sentences;
      if (this.destroyed) return;
      const words = wordsBySentence(piece.text, sentences);
      for (let s = 0; s < sentences.length; s++) {
        const { ids, missing } = phonemeIds(sentences[s]!, job.config.idMap);
        if (missing.length) job.onMissing(missing);
        const last = p === job.pieces.length - 1 && s === sentences.length - 1;
        const silenceMs = last ? 0 : job.silenceMs(p, s, s === sentences.length - 1);
        const { pcm } = await job.session.synthesize(BigInt64Array.from(ids, BigInt), {
          ...job.scales, sid: job.sid, inRate: job.config.sampleRate, outRate: job.sampleRate, silenceMs, tag: this.#tag,
        });
        if (this.destroyed) return;
        const speech = pcm.length - Math.round((silenceMs * job.sampleRate) / 1000);
        const wanted = await this.#send(pcm, speech, words[s] ?? [], p, s === sentences.length - 1);
        if (!wanted) await new Promise<void>((resolve) => (this.#wake = resolve));
        if (this.destroyed) return;
      }
    }
    this.push(null);
  }

  /**
   * Pushes one sentence in chunks, each with its info; false when the consumer wants no more now.
   * A sentence comes whole from the model (seconds of audio): its chunks go out within the
   * process's turn budget (core's turnBudget), so what the consumer does with each (an HTTP write,
   * a WebSocket message) does not run for the whole sentence in one stretch of the JavaScript
   * thread (measured: 15–27 ms).
   */
  async #send(pcm: Int16Array, speechSamples: number, words: Word[], segment: number, pieceEnd: boolean): Promise<boolean> {
    const rate = this.sampleRate;
    const step = this.#job.chunkMs > 0 ? Math.max(1, Math.round((this.#job.chunkMs * rate) / 1000)) : pcm.length;
    const totalChars = words.reduce((n, w) => n + w.length, 0);
    let before = 0;
    const starts = words.map((w) => {
      const at = totalChars ? (before / totalChars) * speechSamples : 0;
      before += w.length;
      return at;
    });
    let wanted = true;
    let k = 0;
    let pushed = 0;
    for (let from = 0; from < pcm.length; from += step) {
      const later = pushed > 0 ? turnBudget.spend() : null;
      if (later) {
        await later;
        if (this.destroyed) return false;
      }
      pushed++;
      const to = Math.min(pcm.length, from + step);
      const timings: WordTiming[] = [];
      while (k < words.length && (starts[k]! < to || to === pcm.length)) {
        timings.push({ textOffset: words[k]!.textOffset, length: words[k]!.length, audioMs: ((starts[k]! - from) / rate) * 1000 });
        k++;
      }
      const info: ChunkInfo = { segment, segmentEnd: pieceEnd && to === pcm.length, samples: to - from, words: timings };
      const chunk: SpeechChunk = { pcm: Buffer.from(pcm.buffer, pcm.byteOffset + from * 2, (to - from) * 2), info };
      wanted = this.push(chunk) && wanted;
    }
    return wanted;
  }
}

/**
 * The words of `text` (white-space separated, UTF-16 offsets) shared out over its sentences: a word
 * belongs to the sentence whose span of phonemes covers the word's place in the text.
 */
export function wordsBySentence(text: string, sentences: string[][]): Word[][] {
  const words = [...text.matchAll(/\S+/gu)].filter((m) => /[\p{L}\p{N}]/u.test(m[0])).map((m) => ({ textOffset: m.index!, length: m[0].length }));
  if (sentences.length <= 1) return [words];
  const total = sentences.reduce((n, s) => n + s.length, 0) || 1;
  const ends: number[] = [];
  let acc = 0;
  for (const s of sentences) ends.push((acc += s.length) / total);
  const out: Word[][] = sentences.map(() => []);
  for (const w of words) {
    const at = (w.textOffset + w.length / 2) / Math.max(1, text.length);
    const i = ends.findIndex((e) => at <= e);
    out[i < 0 ? sentences.length - 1 : i]!.push(w);
  }
  return out;
}
