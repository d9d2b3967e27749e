/** Probing and decoding an upload through its AudioSource (audio-sniff.ts): ffmpeg never picks a demuxer or protocol. */
import { execFile, spawn } from 'node:child_process';
import type { AudioSource } from './audio-sniff.js';
import { errors } from './errors.js';

export interface AudioInfo {
  sampleRate: number;
  channels: number;
  /** Seconds, from the container or the stream; null when unknown. */
  duration: number | null;
  codec: string;
  format: string;
}

/** An upload's first audio stream, or a 40001 with `notAudioMessage`; the duration is declared (bill and cap by decoding). */
export function probeAudioFile(ffprobe: string, source: AudioSource, opts: { signal?: AbortSignal; notAudioMessage: string }): Promise<AudioInfo> {
  const { signal, notAudioMessage } = opts;
  return new Promise((resolve, reject) => {
    execFile(ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels,duration:format=duration,format_name', '-of', 'json', ...source.inputArgs],
      { maxBuffer: 1 << 20, signal }, (err, stdout) => {
        if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
        if (err) return reject(errors.validation(notAudioMessage));
        try {
          const j = JSON.parse(stdout) as { streams?: Array<Record<string, string | number>>; format?: Record<string, string> };
          const s = j.streams?.[0];
          const sampleRate = Number(s?.sample_rate);
          const channels = Number(s?.channels);
          if (!s || !(sampleRate > 0) || !(channels > 0)) return reject(errors.validation(notAudioMessage));
          const d = [s.duration, j.format?.duration].map(Number).find((x) => Number.isFinite(x) && x > 0);
          resolve({ sampleRate, channels, duration: d ?? null, codec: String(s.codec_name), format: String(j.format?.format_name ?? '') });
        } catch {
          reject(errors.validation(notAudioMessage));
        }
      });
  });
}

/** Thrown by decodeAudioFile when the audio passes its `maxSeconds`. */
export class AudioTooLong extends RangeError {
  constructor(readonly maxSeconds: number) {
    super(`audio longer than ${maxSeconds} s`);
  }
}

/** Decodes `source` to PCM16LE mono, keeping the first `keepSeconds` (bounded memory); AudioTooLong past `maxSeconds`. */
export function decodeAudioFile(ffmpeg: string, source: AudioSource, opts: { sampleRate: number; maxSeconds: number; keepSeconds?: number; signal?: AbortSignal }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const max = Math.ceil(opts.maxSeconds * opts.sampleRate) * 2;
    const keep = Math.min(max, Math.ceil((opts.keepSeconds ?? opts.maxSeconds) * opts.sampleRate) * 2);
    let decoded = 0;
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', ...source.inputArgs, '-map', '0:a:0', '-vn', '-t', String(opts.maxSeconds + 0.5), '-ac', '1', '-ar', String(opts.sampleRate), '-f', 's16le', 'pipe:1'],
      { stdio: ['ignore', 'pipe', 'ignore'], signal: opts.signal });
    // Grown by doubling up to the cap (a short file does not take the cap's memory).
    let out = Buffer.alloc(Math.min(keep, 1 << 20));
    let bytes = 0;
    let tooLong = false;
    p.stdout.on('data', (c: Buffer) => {
      if (tooLong) return;
      decoded += c.length;
      if (decoded > max) {
        tooLong = true;
        p.kill('SIGKILL');
        return;
      }
      const take = Math.min(c.length, keep - bytes);
      if (take <= 0) return;
      if (bytes + take > out.length) {
        const grown = Buffer.alloc(Math.min(keep, Math.max(out.length * 2, bytes + take)));
        out.copy(grown, 0, 0, bytes);
        out = grown;
      }
      c.copy(out, bytes, 0, take);
      bytes += take;
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (tooLong) return reject(new AudioTooLong(opts.maxSeconds));
      if (code !== 0) return reject(new Error(`ffmpeg exited with ${code}`));
      // A copy of the used part, so the spare capacity is freed with `out`.
      resolve(bytes === out.length ? out : Buffer.from(out.subarray(0, bytes - (bytes % 2))));
    });
  });
}

/** Transcodes `source` to a plain PCM16 mono WAV file `output`, at most `maxSeconds`, streamed by ffmpeg. */
export function transcodeToWav(ffmpeg: string, source: AudioSource, output: string, opts: { sampleRate: number; maxSeconds: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', '-y', ...source.inputArgs, '-map', '0:a:0', '-vn', '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-t', String(opts.maxSeconds), '-ac', '1', '-ar', String(opts.sampleRate), '-c:a', 'pcm_s16le', '-f', 'wav', output], { stdio: ['ignore', 'ignore', 'ignore'] });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}`))));
  });
}
