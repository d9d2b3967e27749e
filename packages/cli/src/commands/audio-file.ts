// The file `sawt say … --out NAME.EXT` writes: its format from the extension, the PCM encoded as it comes (a book's
// hours of audio are never held in memory), renamed into place once complete (no partial file after an interruption).
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AudioEncoder } from '@sawt/native';
import { outputFormat, setFlacTotalSamples, wavHeader, type OutputFormatSpec } from '@sawt/core';
import { UsageError } from '../args.js';

/** The format each extension of --out gets (MP3 at 128 kbit/s, Ogg Opus at 64, FLAC and WAV at the synthesis rate). */
export const FILE_FORMATS: Readonly<Record<string, string>> = Object.freeze({
  '.mp3': 'mp3_44100_128', '.ogg': 'opus_48000_64', '.opus': 'opus_48000_64', '.flac': 'flac_24000', '.wav': 'wav_24000',
});

/** The output format of a file named `out`, by its extension. */
export function formatForFile(out: string): OutputFormatSpec {
  const name = FILE_FORMATS[path.extname(out).toLowerCase()];
  if (!name) throw new UsageError(`--out: cannot tell the audio format of ${JSON.stringify(out)}: end it in ${Object.keys(FILE_FORMATS).join(', ')}`);
  return outputFormat(name);
}

export interface AudioFile {
  /** Writes all of `pcm` (PCM16 mono at the file's input rate) and renames the file into place; resolves its size in bytes. */
  write(pcm: Readable): Promise<number>;
  /** Removes the partial file (after a failure). */
  abort(): Promise<void>;
}

/** A RIFF size is 32 bits: past this a WAV cannot state its length (about 24 hours of 24 kHz PCM16). */
const RIFF_MAX_DATA = 0xffffffff - 36;

/** `out` in `format`, from PCM16 at `inRate`: one encoder for the whole file (no seams between parts). */
export function audioFile(out: string, format: OutputFormatSpec, inRate: number): AudioFile {
  const tmp = `${out}.partial-${process.pid}`;
  return {
    async write(pcm) {
      const encoder = new AudioEncoder(format.codec === 'wav' ? 'pcm' : format.codec, inRate, format.sampleRate, format.bitrate ?? 0);
      const file = createWriteStream(tmp);
      const put = async (b: Buffer) => {
        if (b.length && !file.write(b)) await once(file, 'drain');
      };
      let dataBytes = 0;
      try {
        if (format.codec === 'wav') await put(wavHeader(0, format.sampleRate));
        let carry: Buffer | null = null;
        for await (const chunk of pcm) {
          let b: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
          carry = null;
          if (b.length % 2) {
            carry = b.subarray(b.length - 1);
            b = b.subarray(0, b.length - 1);
          }
          const bytes = await encoder.push(b);
          dataBytes += bytes.length;
          if (format.codec === 'wav' && dataBytes > RIFF_MAX_DATA) throw new Error('the audio is past 4 GiB, the most a WAV file holds: split the text file, or write .flac or .mp3');
          await put(bytes);
        }
        const last = await encoder.end();
        dataBytes += last.length;
        await put(last);
        file.end();
        await once(file, 'finish');
      } finally {
        file.destroy();
        await encoder.end().catch(() => {});
      }
      if (format.codec === 'wav') await patch(tmp, wavHeader(dataBytes, format.sampleRate), 0);
      if (format.codec === 'flac') await setFlacTotalSamples(tmp);
      await rename(tmp, out);
      return dataBytes + (format.codec === 'wav' ? 44 : 0);
    },
    abort: () => rm(tmp, { force: true }),
  };
}

async function patch(file: string, bytes: Buffer, at: number): Promise<void> {
  const fd = await open(file, 'r+');
  try {
    await fd.write(bytes, 0, bytes.length, at);
  } finally {
    await fd.close();
  }
}
