import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { setFlacTotalSamples, wavHeader, type OutputFormatSpec, type SpeechStream, type WorkDir } from '@sawt/core';
import { encodedAudio, type AudioLimits } from './encoded-audio.js';
import type { PaidBody } from './paid-response.js';

/** A spooled file up to this size is read back and sent in one write (as most answers are). */
const SMALL_FILE_BYTES = 1 << 20;

/**
 * A whole file in `format`, spooled to disk while it is generated (bounded memory), then sent with its
 * Content-Length; a piece of the file carries its share of the source samples, in proportion to its bytes.
 */
export function spooledAudio(stream: SpeechStream, format: OutputFormatSpec, limits: AudioLimits & { workDir: WorkDir }): PaidBody {
  let length = 0;
  async function* pieces() {
    const file = limits.workDir.file('tts', '.pcm');
    try {
      let samples = 0;
      await pipeline(async function* () {
        for await (const p of encodedAudio(stream, format, limits)) {
          samples += p.samples;
          yield p.data;
        }
      }, createWriteStream(file));
      if (format.codec === 'flac') await setFlacTotalSamples(file);
      const bytes = (await stat(file)).size;
      const head = format.codec === 'wav' ? wavHeader(bytes, format.sampleRate) : Buffer.alloc(0);
      length = head.length + bytes;
      if (bytes <= SMALL_FILE_BYTES) {
        yield { data: Buffer.concat([head, await readFile(file)]), samples, last: true };
        return;
      }
      // Read through an open descriptor: the file's name is gone before the first byte is sent.
      const reader = createReadStream(file);
      await once(reader, 'open');
      await rm(file, { force: true });
      const share = (read: number) => Math.floor((read / bytes) * samples);
      let read = 0;
      for await (const data of reader as AsyncIterable<Buffer>) {
        const before = share(read);
        read += data.length;
        yield { data: read === data.length ? Buffer.concat([head, data]) : data, samples: share(read) - before, last: read === bytes };
      }
    } finally {
      await rm(file, { force: true });
    }
  }
  return { pieces: pieces(), headers: () => ({ 'content-type': format.contentType, 'cache-control': 'no-cache', 'content-length': length }) };
}
