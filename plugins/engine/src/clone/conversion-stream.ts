/** Audio conversion of a base voice's speech toward a cloned speaker (native LPC analysis-synthesis), segment by segment. */
import { chunksOf, speechStream, type ChunkInfo, type SpeechChunk, type SpeechMark, type SpeechStream } from '@sawt/core';
import { convertVoice, Resampler, trackF0, type ConvertParams } from '@sawt/native';
import { calibrate, CLONE_RATE, RunningF0, type F0Target } from './profile-math.js';

/** A base-voice stream (PCM16 at CLONE_RATE), each segment converted off the main thread as one chunk at `outRate`; failures are `failure()`. */
export function convertingStream(src: SpeechStream, params: ConvertParams, f0Target: F0Target, outRate: number, failure: () => Error): SpeechStream {
  const running = new RunningF0();
  const resampler = outRate === CLONE_RATE ? null : new Resampler(CLONE_RATE, outRate);
  /** One segment converted (its F0 mapping calibrated on the base speech so far, this segment included) and resampled. */
  const convert = async (parts: Buffer[]): Promise<Buffer> => {
    const pcm = Buffer.concat(parts);
    const f0 = await trackF0(pcm, CLONE_RATE);
    running.add(f0);
    const out = await convertVoice(pcm, CLONE_RATE, { ...calibrate(params, f0Target, running), f0 });
    if (!resampler) return out;
    const r = resampler.process(new Int16Array(out.buffer, out.byteOffset, out.length / 2));
    return Buffer.from(r.buffer, r.byteOffset, r.byteLength);
  };
  const chunk = (pcm: Buffer, segment: number, words: ChunkInfo['words'], isLast: boolean, marks: SpeechMark[]): SpeechChunk => ({ pcm, sampleRate: outRate, isLast, info: { segment, segmentEnd: true, samples: pcm.length / 2, words, ...(marks.length && { marks }) } });
  async function* converted(signal: AbortSignal): AsyncGenerator<SpeechChunk> {
    let parts: Buffer[] = [];
    let words: ChunkInfo['words'] = [];
    // SSML marks keep their times: the conversion keeps the audio's length.
    let marks: SpeechMark[] = [];
    let samples = 0;
    for await (const { pcm, info, isLast } of chunksOf(src, signal) as AsyncIterable<SpeechChunk>) {
      for (const w of info.words) words.push({ ...w, audioMs: w.audioMs + (samples / CLONE_RATE) * 1000 });
      if (info.marks) marks.push(...info.marks);
      parts.push(pcm);
      samples += pcm.length / 2;
      if (!info.segmentEnd && !isLast) continue;
      const out = await convert(parts);
      if (signal.aborted) return;
      const tail = isLast && resampler ? resampler.flush() : null;
      yield chunk(tail?.length ? Buffer.concat([out, Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength)]) : out, info.segment, words, isLast, marks);
      parts = [];
      words = [];
      marks = [];
      samples = 0;
    }
  }
  return speechStream(async function* (signal) {
    try {
      yield* converted(signal);
    } catch (e) {
      throw (e as { code?: unknown }).code === 40001 ? e : failure();
    }
  });
}
