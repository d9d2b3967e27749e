import { execFile, spawn } from 'node:child_process';
import { errors } from '@sawt/core';

export interface AudioInfo {
  sampleRate: number;
  channels: number;
  /** Seconds, from the container or the stream; null when unknown. */
  duration: number | null;
  codec: string;
  format: string;
}

export const NOT_AUDIO = 'audio must be an audio file (WAV, MP3, M4A, FLAC or OGG)';

/** Probes a file from its bytes (no extension is given to ffprobe): its first audio stream, or 40001. */
export function probeAudio(ffprobe: string, file: string, signal?: AbortSignal): Promise<AudioInfo> {
  return new Promise((resolve, reject) => {
    execFile(ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels,duration:format=duration,format_name', '-of', 'json', file],
      { maxBuffer: 1 << 20, signal }, (err, stdout) => {
        if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
        if (err) return reject(errors.validation(NOT_AUDIO));
        try {
          const j = JSON.parse(stdout) as { streams?: Array<Record<string, string | number>>; format?: Record<string, string> };
          const s = j.streams?.[0];
          const sampleRate = Number(s?.sample_rate);
          const channels = Number(s?.channels);
          if (!s || !(sampleRate > 0) || !(channels > 0)) return reject(errors.validation(NOT_AUDIO));
          const d = [s.duration, j.format?.duration].map(Number).find((x) => Number.isFinite(x) && x > 0);
          resolve({ sampleRate, channels, duration: d ?? null, codec: String(s.codec_name), format: String(j.format?.format_name ?? '') });
        } catch {
          reject(errors.validation(NOT_AUDIO));
        }
      });
  });
}

/** Duration by decoding (for containers that do not state it): seconds of the first audio stream. */
export function measureDuration(ffmpeg: string, file: string, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', '-i', file, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1'], { stdio: ['ignore', 'pipe', 'ignore'], signal });
    let bytes = 0;
    p.stdout.on('data', (c: Buffer) => { bytes += c.length; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(bytes / 2 / 8000) : reject(errors.validation(NOT_AUDIO))));
  });
}
