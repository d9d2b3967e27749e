/**
 * A prepared text's steps (SpeechSynthesizer.prepare) as one audio stream: `speak` steps from the back end,
 * `pause` as silence, each `mark` as its time on the next chunk (inside a speak step: its word's start).
 */
import type { SpeechChunk, SpeechMark, SpeechStep } from '@sawt/core';

/** Silence is sent in pieces of at most this length (a 10 s break is no 10 s chunk). */
const PAUSE_PIECE_MS = 200;

export interface StepSources {
  /** The output rate (Hz). */
  sampleRate: number;
  /** Whether speak step `k` has anything to say (its front end may start here, while the step before plays). */
  hasAudio(k: number): Promise<boolean>;
  /** The audio of speak step `k` (its last chunk has isLast), or null when it has nothing to say. */
  speak(k: number, signal: AbortSignal): Promise<AsyncIterable<SpeechChunk> | null>;
}

const msOf = (samples: number, rate: number) => Math.round((samples * 1000) / rate);

/** The steps' audio as one stream of chunks (see the module's comment). */
export async function* stepsAudio(steps: readonly SpeechStep[], sources: StepSources, signal: AbortSignal): AsyncGenerator<SpeechChunk> {
  const rate = sources.sampleRate;
  let samples = 0;
  let segments = 0;
  let pending: SpeechMark[] = [];
  /** Whether a step after `k` gives audio. */
  const audioAfter = async (k: number): Promise<boolean> => {
    for (let j = k + 1; j < steps.length; j++) {
      const s = steps[j]!;
      if (s.kind === 'pause' ? s.ms > 0 : s.kind === 'speak' && (await sources.hasAudio(j))) return true;
    }
    return false;
  };
  /** `chunk` with the marks reached before it (and, on the last one, the marks after its end). */
  const marked = (chunk: SpeechChunk, k: number): SpeechChunk => {
    samples += chunk.info.samples;
    if (chunk.isLast) for (const s of steps.slice(k + 1)) if (s.kind === 'mark') pending.push({ name: s.name, timeMs: msOf(samples, rate) });
    if (!pending.length) return chunk;
    const marks = pending;
    pending = [];
    return { ...chunk, info: { ...chunk.info, marks } };
  };
  for (const [k, step] of steps.entries()) {
    if (signal.aborted) return;
    if (step.kind === 'mark') {
      pending.push({ name: step.name, timeMs: msOf(samples, rate) });
    } else if (step.kind === 'pause') {
      const total = Math.round((step.ms * rate) / 1000);
      const last = total > 0 && !(await audioAfter(k));
      for (let done = 0; done < total;) {
        const n = Math.min(total - done, Math.round((PAUSE_PIECE_MS * rate) / 1000));
        done += n;
        yield marked({ pcm: Buffer.alloc(n * 2), sampleRate: rate, isLast: last && done === total, info: { segment: segments, segmentEnd: done === total, samples: n, words: [] } }, k);
      }
      if (total > 0) segments++;
      if (last) return;
    } else {
      const chunks = await sources.speak(k, signal);
      if (!chunks) continue;
      let lastSegment = -1;
      let ended = false;
      const inner = step.marks ?? [];
      let next = 0;
      let words = 0;
      for await (const chunk of chunks) {
        lastSegment = chunk.info.segment;
        // Marks inside the step: at the start of their word, as the engine timed it; the rest at the step's end.
        for (const w of chunk.info.words) {
          for (; next < inner.length && inner[next]!.words <= words; next++) pending.push({ name: inner[next]!.name, timeMs: msOf(samples + (w.audioMs * rate) / 1000, rate) });
          words++;
        }
        if (chunk.isLast) for (; next < inner.length; next++) pending.push({ name: inner[next]!.name, timeMs: msOf(samples + chunk.info.samples, rate) });
        ended = chunk.isLast && !(await audioAfter(k));
        yield marked({ ...chunk, isLast: ended, info: { ...chunk.info, segment: chunk.info.segment + segments } }, k);
      }
      segments += lastSegment + 1;
      if (ended) return;
    }
  }
}

/** `chunks` at a gain of `db` dB (null: silence of the same length), clipped to 16 bits. */
export async function* withGain(chunks: AsyncIterable<SpeechChunk>, db: number | null): AsyncGenerator<SpeechChunk> {
  const gain = db === null ? 0 : 10 ** (db / 20);
  for await (const chunk of chunks) {
    if (gain === 1) {
      yield chunk;
      continue;
    }
    const pcm = Buffer.alloc(chunk.pcm.length);
    for (let i = 0; i + 1 < pcm.length; i += 2) pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(chunk.pcm.readInt16LE(i) * gain))), i);
    yield { ...chunk, pcm };
  }
}
