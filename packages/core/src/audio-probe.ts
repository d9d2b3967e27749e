/**
 * Deciding what an uploaded file is from its bytes (ffprobe, no file name or
 * declared type) and decoding it (ffmpeg): shared by every upload endpoint
 * (denoise, voice preview, voice cloning).
 */
import { execFile, spawn } from 'node:child_process';
import { errors } from './errors.js';

export interface AudioInfo {
  sampleRate: number;
  channels: number;
  /** Seconds, from the container or the stream; null when unknown. */
  duration: number | null;
  codec: string;
  format: string;
}

/** Probes a file from its bytes: its first audio stream, or a 40001 with `notAudioMessage`. */
export function probeAudioFile(ffprobe: string, file: string, opts: { signal?: AbortSignal; notAudioMessage: string }): Promise<AudioInfo> {
  const { signal, notAudioMessage } = opts;
  return new Promise((resolve, reject) => {
    execFile(ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels,duration:format=duration,format_name', '-of', 'json', file],
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

/**
 * Decodes the first audio stream of `file` to PCM16LE mono at `sampleRate`.
 * `raw` reads the file as headerless PCM16LE mono at `raw.sampleRate`.
 * Rejects when ffmpeg fails or the audio passes `maxSeconds`.
 */
export function decodeAudioFile(ffmpeg: string, file: string, opts: { sampleRate: number; maxSeconds?: number; raw?: { sampleRate: number }; signal?: AbortSignal }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const input = opts.raw ? ['-f', 's16le', '-ar', String(opts.raw.sampleRate), '-ac', '1', '-i', file] : ['-i', file];
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', ...input, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(opts.sampleRate), '-f', 's16le', 'pipe:1'], { stdio: ['ignore', 'pipe', 'ignore'], signal: opts.signal });
    const chunks: Buffer[] = [];
    let bytes = 0;
    const max = opts.maxSeconds ? opts.maxSeconds * opts.sampleRate * 2 : Infinity;
    let tooLong = false;
    p.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes > max) {
        tooLong = true;
        p.kill('SIGKILL');
        return;
      }
      chunks.push(c);
    });
    p.on('error', reject);
    p.on('close', (code) => {
      if (tooLong) return reject(new RangeError(`audio longer than ${opts.maxSeconds} s`));
      if (code !== 0) return reject(new Error(`ffmpeg exited with ${code}`));
      resolve(Buffer.concat(chunks));
    });
  });
}

/** Whether headerless bytes can be PCM16 audio rather than text or another document (a sniff, used after ffprobe found no container). */
export function plausibleRawPcm16(head: Buffer, totalBytes: number): boolean {
  if (totalBytes < 4800 || totalBytes % 2 !== 0 || head.length < 2) return false;
  let printable = 0;
  for (const b of head) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) printable++;
  if (printable / head.length > 0.9) return false;
  // Document signatures ffprobe does not read as audio.
  const sig = head.subarray(0, 4).toString('latin1');
  if (['%PDF', 'PK\u0003\u0004', '\u0089PNG', 'GIF8', '\u007fELF'].includes(sig) || (head[0] === 0xff && head[1] === 0xd8)) return false;
  return true;
}

/**
 * Transcodes the first audio stream of `input` to a PCM16 mono WAV at `sampleRate`
 * in `output`, keeping at most the first `maxSeconds` (ffmpeg streams it: nothing
 * is held in memory). Rejects when ffmpeg fails.
 */
export function transcodeToWav(ffmpeg: string, input: string, output: string, opts: { sampleRate: number; maxSeconds: number; raw?: { sampleRate: number } }): Promise<void> {
  return new Promise((resolve, reject) => {
    const src = opts.raw ? ['-f', 's16le', '-ar', String(opts.raw.sampleRate), '-ac', '1', '-i', input] : ['-i', input];
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', '-y', ...src, '-map', '0:a:0', '-vn', '-t', String(opts.maxSeconds), '-ac', '1', '-ar', String(opts.sampleRate), '-c:a', 'pcm_s16le', '-f', 'wav', output], { stdio: ['ignore', 'ignore', 'ignore'] });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}`))));
  });
}
