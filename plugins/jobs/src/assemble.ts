/**
 * The last step of a job: its parts' PCM, in order, through one encoder (so the audio has no
 * seams: one MP3 bit reservoir, one Ogg stream with continuous granule positions, one FLAC
 * stream), into the job's audio file; its cues and chapters on one timeline.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { AudioEncoder } from '@sawt/native';
import { playedDelayMs, setFlacTotalSamples, wavHeader, type BlobStore, type OutputFormatSpec, type WorkDir } from '@sawt/core';
import { timeChapters, type Cue, type TimedChapter } from './captions.js';
import type { DonePart } from './job-store.js';
import type { Chapter } from './spoken-text.js';

export interface Timeline {
  cues: Cue[];
  chapters: TimedChapter[];
}

export interface AssembledAudio {
  audioKey: string;
  audioBytes: number;
  timelineKey: string;
}

/** The largest data chunk a plain RIFF WAV can state (its sizes are 32-bit). */
const RIFF_MAX_DATA = 0xffffffff - 36;

/** An RF64 header (EBU Tech 3306) for PCM16 mono data of `dataBytes`: a WAV past 4 GiB. */
export function rf64Header(dataBytes: number, sampleRate: number): Buffer {
  const h = Buffer.alloc(80);
  h.write('RF64', 0, 'ascii');
  h.writeUInt32LE(0xffffffff, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('ds64', 12, 'ascii');
  h.writeUInt32LE(28, 16);
  h.writeBigUInt64LE(BigInt(72 + dataBytes), 20);
  h.writeBigUInt64LE(BigInt(dataBytes), 28);
  h.writeBigUInt64LE(BigInt(dataBytes / 2), 36);
  h.writeUInt32LE(0, 44);
  wavHeader(0, sampleRate).copy(h, 48, 12, 36);
  h.write('data', 72, 'ascii');
  h.writeUInt32LE(0xffffffff, 76);
  return h;
}

export function wavFileHeader(dataBytes: number, sampleRate: number): Buffer {
  return dataBytes > RIFF_MAX_DATA ? rf64Header(dataBytes, sampleRate) : wavHeader(dataBytes, sampleRate);
}

/** The cues of all parts on the audio's time line (each part starts where the one before ended). */
export function joinCues(parts: DonePart[], synthesisRate: number, offsetMs: number): Cue[] {
  const cues: Cue[] = [];
  let startMs = 0;
  for (const p of parts) {
    for (const c of p.cues) cues.push({ s: Math.round(startMs + c.s + offsetMs), e: Math.round(startMs + c.e + offsetMs), t: c.t, at: c.at });
    startMs += (p.samples / synthesisRate) * 1000;
  }
  if (cues.length) cues[0]!.s = 0;
  // Each part's times are rounded on their own: a cue ends exactly where the next one starts.
  for (let k = 0; k + 1 < cues.length; k++) cues[k]!.e = cues[k + 1]!.s;
  return cues;
}

export async function assemble(input: {
  jobId: string;
  parts: DonePart[];
  format: OutputFormatSpec;
  synthesisRate: number;
  chapters: Chapter[];
  blobs: BlobStore;
  workDir: WorkDir;
  /** Called between parts (renews the finisher's lease); throws to stop. */
  onProgress: () => Promise<void>;
}): Promise<AssembledAudio> {
  const { format, jobId } = input;
  // This attempt's own names: a finisher that lost its lease (a paused process, a sweep that took
  // over) removes its files without touching those of the one that ended the job.
  const attempt = randomUUID().slice(0, 8);
  const encoder = new AudioEncoder(format.codec === 'wav' ? 'pcm' : format.codec, input.synthesisRate, format.sampleRate, format.bitrate ?? 0);
  const spool = input.workDir.file(`job-${jobId}`, `.${format.extension}`);
  const out = createWriteStream(spool);
  const write = async (b: Buffer) => {
    if (b.length && !out.write(b)) await once(out, 'drain');
  };
  try {
    for (const part of input.parts) {
      let carry: Buffer | null = null;
      for await (const chunk of await input.blobs.get(part.blobKey)) {
        let b: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
        carry = null;
        if (b.length % 2) {
          carry = b.subarray(b.length - 1);
          b = b.subarray(0, b.length - 1);
        }
        await write(await encoder.push(b));
      }
      await input.onProgress();
    }
    await write(await encoder.end());
    out.end();
    await once(out, 'finish');
    // The encoder wrote FLAC's STREAMINFO first, with 0 samples: a player would show no duration.
    if (format.codec === 'flac') await setFlacTotalSamples(spool);
    const bytes = (await stat(spool)).size;
    const header = format.codec === 'wav' ? wavFileHeader(bytes, format.sampleRate) : null;
    const audioKey = `jobs/${jobId}/audio-${attempt}.${format.extension}`;
    const body = header ? Readable.from((async function* () {
      yield header;
      yield* createReadStream(spool);
    })()) : createReadStream(spool);
    await input.blobs.put(audioKey, body);
    const cues = joinCues(input.parts, input.synthesisRate, playedDelayMs(format));
    const timeline: Timeline = { cues, chapters: timeChapters(input.chapters, cues) };
    const timelineKey = `jobs/${jobId}/timeline-${attempt}.json`;
    await input.blobs.put(timelineKey, Buffer.from(JSON.stringify(timeline)));
    return { audioKey, audioBytes: bytes + (header?.length ?? 0), timelineKey };
  } finally {
    out.destroy();
    await encoder.end().catch(() => {});
    await rm(spool, { force: true });
  }
}
