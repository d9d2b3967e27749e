// Decodes audio bytes with the real ffprobe/ffmpeg: what a player or a pipeline would make of them.
// Asynchronously: the test process often runs the server too, and a loop blocked for seconds lets the
// server's keep-alive timer close the client's kept-alive socket (ECONNRESET on the next request).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { OUTPUT_FORMAT_TABLE } from '@sawt/core';

const run = promisify(execFile);

export const FORMATS = OUTPUT_FORMAT_TABLE;

/** ffmpeg's input options for the headerless formats. */
function rawInput(format) {
  if (format.codec === 'pcm') return ['-f', 's16le', '-ar', String(format.sampleRate), '-ac', '1'];
  if (format.codec === 'ulaw') return ['-f', 'mulaw', '-ar', '8000', '-ac', '1'];
  if (format.codec === 'alaw') return ['-f', 'alaw', '-ar', '8000', '-ac', '1'];
  return [];
}

/** The codec name ffprobe gives each format. */
export const FFPROBE_CODEC = { pcm: 'pcm_s16le', wav: 'pcm_s16le', mp3: 'mp3', opus: 'opus', flac: 'flac', ulaw: 'pcm_mulaw', alaw: 'pcm_alaw' };

/** { codec, sampleRate, channels, samples, seconds, rms } of `bytes` in `format`, decoded at the stream's own rate. */
export async function decode(bytes, format) {
  const dir = await mkdtemp(path.join(tmpdir(), 'sawt-fmt-'));
  try {
    const file = path.join(dir, `audio.${format.extension}`);
    await writeFile(file, bytes);
    const probe = JSON.parse((await run('ffprobe', ['-v', 'error', ...rawInput(format), '-show_streams', '-of', 'json', file])).stdout);
    const s = probe.streams[0];
    const { stdout: pcm } = await run('ffmpeg', ['-v', 'error', ...rawInput(format), '-i', file, '-f', 's16le', '-ac', '1', '-'], { encoding: 'buffer', maxBuffer: 1 << 28 });
    const n = Math.floor(pcm.length / 2);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += pcm.readInt16LE(2 * i) ** 2;
    const sampleRate = Number(s.sample_rate);
    return { codec: s.codec_name, sampleRate, channels: s.channels, samples: n, seconds: n / sampleRate, rms: n ? Math.sqrt(sum / n) : 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
