/**
 * Audio conversion of a base voice's speech toward a cloned speaker (native: LPC
 * analysis-synthesis with TD-PSOLA F0 mapping, VTL frequency warping and a smooth EQ),
 * segment by segment as it is synthesized, the F0 mapping calibrated on the log-F0
 * median and spread of the base speech converted so far.
 */
import { Readable } from 'node:stream';
import { SPEECH_STREAM_OPTIONS, type ChunkInfo, type SpeechChunk, type SpeechStream } from '@sawt/core';
import { convertVoice, Resampler, trackF0, type ConvertParams } from '@sawt/native';
import { calibrate, CLONE_RATE, RunningF0, type F0Target } from './profile-math.js';

/**
 * Converts a base-voice stream (PCM16 at CLONE_RATE) segment by segment: each
 * segment's audio is collected, converted off the main thread, resampled to
 * `outRate` and pushed as one chunk (word timings kept).
 */
export function convertingStream(src: SpeechStream, params: ConvertParams, f0Target: F0Target, outRate: number, failure: () => Error): SpeechStream {
  const running = new RunningF0();
  /** One segment converted, its F0 mapping calibrated on the base speech so far (this segment included). */
  const convert = async (pcm: Buffer): Promise<Buffer> => {
    const f0 = await trackF0(pcm, CLONE_RATE);
    running.add(f0);
    return convertVoice(pcm, CLONE_RATE, { ...calibrate(params, f0Target, running), f0 });
  };
  const resampler = outRate === CLONE_RATE ? null : new Resampler(CLONE_RATE, outRate);
  let wake: (() => void) | null = null;
  let started = false;
  const out: SpeechStream = new Readable({
    ...SPEECH_STREAM_OPTIONS,
    read() {
      if (!started) {
        started = true;
        pump().catch((e) => out.destroy(e instanceof Error && (e as { code?: unknown }).code === 40001 ? e : failure()));
      }
      const w = wake;
      wake = null;
      w?.();
    },
    destroy(err, cb) {
      src.destroy();
      cb(err);
    },
  });
  const push = async (pcm: Buffer, info: Omit<ChunkInfo, 'samples'>) => {
    if (!out.push({ pcm, info: { ...info, samples: pcm.length / 2 } } satisfies SpeechChunk)) await new Promise<void>((r) => (wake = r));
  };
  async function pump(): Promise<void> {
    let parts: Buffer[] = [];
    let words: ChunkInfo['words'] = [];
    let samples = 0;
    let segment = 0;
    /** Converts the collected segment, resamples it and pushes it as one chunk; false once `out` is gone. */
    const flush = async (): Promise<boolean> => {
      let pcm = await convert(Buffer.concat(parts));
      if (out.destroyed) return false;
      if (resampler) {
        const r = resampler.process(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
        pcm = Buffer.from(r.buffer, r.byteOffset, r.byteLength);
      }
      await push(pcm, { segment, segmentEnd: true, words });
      parts = [];
      words = [];
      samples = 0;
      return true;
    };
    for await (const { pcm, info } of src as AsyncIterable<SpeechChunk>) {
      for (const w of info.words) words.push({ ...w, audioMs: w.audioMs + (samples / CLONE_RATE) * 1000 });
      parts.push(pcm);
      samples += pcm.length / 2;
      segment = info.segment;
      if (info.segmentEnd && !(await flush())) return;
    }
    if (parts.length && !(await flush())) return;
    if (resampler) {
      const t = resampler.flush();
      if (t.length) await push(Buffer.from(t.buffer, t.byteOffset, t.byteLength), { segment, segmentEnd: true, words: [] });
    }
    out.push(null);
  }
  return out;
}
