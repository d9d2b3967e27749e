import { Readable, Transform } from 'node:stream';
import type { SpeechChunk, SpeechStream } from './services/index.js';

/**
 * Chunks a speech stream holds before it stops its producer. Object-mode streams count chunks, and
 * a chunk is typically a whole sentence or 100 ms or more of audio: one waiting chunk keeps the
 * consumer fed while the next is generated.
 */
export const SPEECH_HIGH_WATER_MARK = 1;

/** Options of an object-mode Readable of SpeechChunk. */
export const SPEECH_STREAM_OPTIONS = { objectMode: true, highWaterMark: SPEECH_HIGH_WATER_MARK } as const;

/**
 * Options of a stream that passes another's chunks on: what the engine pushed at once (a sentence
 * cut into chunks) reaches the consumer together, as its 16 KiB byte buffer let it before.
 */
export const SPEECH_RELAY_OPTIONS = { objectMode: true, highWaterMark: 8 } as const;

/**
 * `source` passed on chunk for chunk, `onChunk` seeing each as it goes by (counting samples, first
 * audio). Backpressure reaches `source`; destroying the result destroys `source`, and an error of
 * `source` (or its closing before the end) destroys the result; `atEnd`, asked when `source` ends,
 * may turn the end into an error. The result keeps `source`'s `sampleRate`.
 */
export function observeSpeech(source: SpeechStream, onChunk: (chunk: SpeechChunk) => void, atEnd?: () => Error | null): SpeechStream {
  const out = new Readable({
    ...SPEECH_RELAY_OPTIONS,
    read() {
      source.resume();
    },
    destroy(error, callback) {
      source.destroy();
      callback(error);
    },
  });
  const rate = (source as { sampleRate?: number }).sampleRate;
  if (rate !== undefined) Object.defineProperty(out, 'sampleRate', { value: rate, enumerable: true });
  source.on('data', (chunk: SpeechChunk) => {
    if (out.destroyed) return;
    onChunk(chunk);
    if (!out.push(chunk)) source.pause();
  });
  let ended = false;
  source.once('end', () => {
    ended = true;
    const error = atEnd?.();
    if (error) out.destroy(error);
    else out.push(null);
  });
  source.once('error', (error) => out.destroy(error));
  // Destroyed without an error before its end (cancelled): the result ends the same way.
  source.once('close', () => {
    if (!ended && !out.destroyed) out.destroy(new Error('speech stream closed before its end'));
  });
  return out;
}

/** The PCM of a speech stream as a byte stream (for a file, a player or an HTTP body). */
export function speechPcm(stream: SpeechStream): Transform {
  const pcm = new Transform({
    writableObjectMode: true,
    transform(chunk: SpeechChunk, _encoding, callback) {
      callback(null, chunk.pcm);
    },
  });
  stream.once('error', (error) => pcm.destroy(error));
  pcm.once('close', () => stream.destroy());
  return stream.pipe(pcm);
}

/** Reads a speech stream to its end: its whole PCM in one Buffer. */
export async function speechAudio(stream: SpeechStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const { pcm } of stream as AsyncIterable<SpeechChunk>) parts.push(pcm);
  return Buffer.concat(parts);
}
