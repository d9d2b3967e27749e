import { spawn } from 'node:child_process';
import { errors, probeAudioFile, type AudioInfo } from '@sawt/core';

export type { AudioInfo } from '@sawt/core';

export const NOT_AUDIO = 'audio must be an audio file (WAV, MP3, M4A, FLAC or OGG)';

/** Probes a file from its bytes (no extension is given to ffprobe): its first audio stream, or 40001. */
export function probeAudio(ffprobe: string, file: string, signal?: AbortSignal): Promise<AudioInfo> {
  return probeAudioFile(ffprobe, file, { signal, notAudioMessage: NOT_AUDIO });
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
