import { spawn } from 'node:child_process';
import { audioSource, errors, probeAudioFile, type AudioInfo, type AudioSource } from '@sawt/core';

export type { AudioInfo } from '@sawt/core';

export const NOT_AUDIO = 'audio must be an audio file (WAV, MP3, M4A, FLAC, OGG, WebM, AAC or AMR)';

/** The upload as ffmpeg may read it: its container decided from its bytes (audio-sniff), or 40001. */
export function denoiseSource(file: { path: string; bytes: number; head?: Buffer }): Promise<AudioSource> {
  return audioSource(file, { notAudioMessage: NOT_AUDIO });
}

/** Probes an upload (its sniffed container only): its first audio stream, or 40001. */
export function probeAudio(ffprobe: string, source: AudioSource, signal?: AbortSignal): Promise<AudioInfo> {
  return probeAudioFile(ffprobe, source, { signal, notAudioMessage: NOT_AUDIO });
}

/** Duration by a cheap decode (8 kHz mono, counted; the header can lie) to `maxSeconds` + a margin: more passes the cap. */
export function decodedDuration(ffmpeg: string, source: AudioSource, maxSeconds: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg, ['-nostdin', '-v', 'error', ...source.inputArgs, '-map', '0:a:0', '-vn', '-t', String(maxSeconds + 1), '-ac', '1', '-ar', '8000', '-f', 'u8', '-acodec', 'pcm_u8', 'pipe:1'],
      { stdio: ['ignore', 'pipe', 'ignore'], signal });
    let bytes = 0;
    p.stdout.on('data', (c: Buffer) => { bytes += c.length; });
    p.on('error', (e) => reject(signal?.aborted ? signal.reason : e));
    p.on('close', (code) => (code === 0 && bytes > 0 ? resolve(bytes / 8000) : reject(signal?.aborted ? signal.reason : errors.validation(NOT_AUDIO))));
  });
}
