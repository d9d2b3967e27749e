/**
 * A Piper synthesis as speech chunks: one ONNX run per sentence, the next once the previous one's chunks
 * are read; an abort ends the run in flight. Word timings are estimates (Piper's export gives no durations):
 * a sentence's speech spread over its words by their length in characters.
 */
import { turnBudget, type SpeechChunk, type WordTiming } from '@sawt/core';
import type { PiperSession } from '@sawt/native';
import { phonemeIds } from './phonemes.js';
import type { PiperVoiceConfig } from './voice-config.js';

/** A piece of text as the front end hands it to Piper: its phonemes per sentence (in flight). */
export interface PiperPiece {
  text: string;
  /** The piece ends mid-sentence (a long first sentence cut): no sentence silence after it. */
  cut: boolean;
  sentences: Promise<string[][]>;
}

export interface PiperRun {
  session: PiperSession;
  config: PiperVoiceConfig;
  /** Text pieces in order (the stream's segments). */
  pieces: PiperPiece[];
  scales: { noiseScale: number; lengthScale: number; noiseW: number };
  sid: number;
  sampleRate: number;
  /** Chunks of about this length (0: one chunk per sentence). */
  chunkMs: number;
  /** Silence after each sentence but the last, ms (pieces cut off a sentence get none). */
  sentenceSilenceMs: number;
  onMissing: (phonemes: string[]) => void;
  signal: AbortSignal;
}

let nextTag = 1;

interface Word {
  textOffset: number;
  length: number;
}

export async function* piperChunks(run: PiperRun): AsyncGenerator<SpeechChunk> {
  const tag = nextTag++ % 0xffffffff;
  const cancel = () => run.session.cancel(tag);
  run.signal.addEventListener('abort', cancel, { once: true });
  // Rejections are handled where each is awaited; this keeps an early one from being unhandled.
  for (const p of run.pieces) p.sentences.catch(() => {});
  try {
    for (const [p, piece] of run.pieces.entries()) {
      const sentences = await piece.sentences;
      const words = wordsBySentence(piece.text, sentences);
      for (const [s, phonemes] of sentences.entries()) {
        if (run.signal.aborted) return;
        const { ids, missing } = phonemeIds(phonemes, run.config.idMap);
        if (missing.length) run.onMissing(missing);
        const sentenceEnd = s === sentences.length - 1;
        const last = p === run.pieces.length - 1 && sentenceEnd;
        const silenceMs = last || piece.cut ? 0 : run.sentenceSilenceMs;
        const { pcm } = await run.session.synthesize(BigInt64Array.from(ids, BigInt), {
          ...run.scales, sid: run.sid, inRate: run.config.sampleRate, outRate: run.sampleRate, silenceMs, tag,
        });
        if (run.signal.aborted) return;
        const speech = pcm.length - Math.round((silenceMs * run.sampleRate) / 1000);
        yield* sentenceChunks(run, pcm, speech, words[s] ?? [], p, sentenceEnd, last);
      }
    }
  } finally {
    run.signal.removeEventListener('abort', cancel);
  }
}

/**
 * One sentence in chunks, each with its info. A sentence comes whole from the model: its chunks go
 * out within the turn budget (core's scheduling.ts says why, with the measurement).
 */
async function* sentenceChunks(run: PiperRun, pcm: Int16Array, speechSamples: number, words: Word[], segment: number, sentenceEnd: boolean, last: boolean): AsyncGenerator<SpeechChunk> {
  const rate = run.sampleRate;
  const step = run.chunkMs > 0 ? Math.max(1, Math.round((run.chunkMs * rate) / 1000)) : pcm.length;
  const totalChars = words.reduce((n, w) => n + w.length, 0);
  let before = 0;
  const starts = words.map((w) => {
    const at = totalChars ? (before / totalChars) * speechSamples : 0;
    before += w.length;
    return at;
  });
  let k = 0;
  for (let from = 0; from < pcm.length; from += step) {
    const later = from > 0 ? turnBudget.spend() : null;
    if (later) await later;
    if (run.signal.aborted) return;
    const to = Math.min(pcm.length, from + step);
    const timings: WordTiming[] = [];
    while (k < words.length && (starts[k]! < to || to === pcm.length)) {
      timings.push({ textOffset: words[k]!.textOffset, length: words[k]!.length, audioMs: ((starts[k]! - from) / rate) * 1000 });
      k++;
    }
    const end = to === pcm.length;
    yield {
      pcm: Buffer.from(pcm.buffer, pcm.byteOffset + from * 2, (to - from) * 2),
      sampleRate: rate,
      isLast: last && end,
      info: { segment, segmentEnd: sentenceEnd && end, samples: to - from, words: timings },
    };
  }
}

/** The words of `text` shared out over its sentences: each to the one whose phonemes cover its place in the text. */
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
