import { outputTooLong, turnBudget, type OutputFormatSpec, type SpeechChunk, type SpeechStream } from '@sawt/core';
import { AudioEncoder } from '@sawt/native';
import { OutputCapped, type BodyPiece } from './paid-response.js';

/** How much audio one response may hold. */
export interface AudioLimits {
  /** Longest audio one request may produce (seconds): past it the audio throws OutputCapped. */
  maxOutputSeconds: number;
}

/**
 * The speech in `format` (a WAV's PCM without its header), piece by piece as it is generated, encoded
 * off the event loop, `head` before the first bytes; each piece carries the source samples it holds.
 * The first piece goes as soon as the first chunk is encoded (even empty: the headers go with it).
 */
export async function* encodedAudio(stream: SpeechStream, format: OutputFormatSpec, limits: AudioLimits, opts: { head?: Buffer; onChunk?: (chunk: SpeechChunk) => void } = {}): AsyncGenerator<BodyPiece> {
  let head = opts.head ?? Buffer.alloc(0);
  let encoder: AudioEncoder | null = null;
  let pending = 0;
  let first = true;
  let ended = false;
  const piece = (data: Buffer, last = false): BodyPiece => {
    const p = { data: head.length ? Buffer.concat([head, data]) : data, samples: pending, last };
    head = Buffer.alloc(0);
    pending = 0;
    first = false;
    return p;
  };
  try {
    for await (const chunk of stream as AsyncIterable<SpeechChunk>) {
      const { pcm, sampleRate } = chunk;
      encoder ??= new AudioEncoder(format.codec === 'wav' ? 'pcm' : format.codec, sampleRate, format.sampleRate, format.bitrate ?? 0);
      if (encoder.samplesIn + pcm.length / 2 > Math.ceil(limits.maxOutputSeconds * sampleRate)) throw new OutputCapped(outputTooLong(limits.maxOutputSeconds));
      // The first audio of a response goes at once; later chunks share the turn (turnBudget).
      const later = first ? null : turnBudget.spend();
      if (later) await later;
      const data = await encoder.push(pcm);
      pending += pcm.length / 2;
      opts.onChunk?.(chunk);
      if (data.length || first) yield piece(data);
    }
    ended = true;
    yield piece((await encoder?.end()) ?? Buffer.alloc(0), true);
  } finally {
    if (!ended) void encoder?.end().catch(() => {});
  }
}
