import { spawn, type ChildProcess } from 'node:child_process';
import { open } from 'node:fs/promises';
import { wavHeader, type AudioSource } from '@sawt/core';
import type { Denoiser } from './denoisers.js';
import type { AudioInfo } from './probe.js';

export class NoAudioDecoded extends Error {
  constructor() {
    super('no audio samples could be decoded');
  }
}

/** The decoded audio passed the duration cap (whatever the header said). */
export class DecodedTooLong extends Error {
  constructor(readonly maxSeconds: number) {
    super(`the decoded audio passes ${maxSeconds} s`);
  }
}

/** How far past the cap the decoder runs (`-t`), so that reaching the cap is told apart from ending on it. */
export const CAP_MARGIN_SECONDS = 1;

/** Settles when the process ends; marked handled at once, as it may reject (killed on abort) before it is awaited. */
function exited(p: ChildProcess, what: string): Promise<void> {
  let stderr = '';
  p.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 4000) stderr += c.toString();
  });
  return handled(new Promise((resolve, reject) => {
    p.once('error', reject);
    p.once('close', (code, sig) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${code ?? sig}): ${stderr.trim()}`))));
  }));
}

/** `p`, with a no-op handler attached so that a rejection before it is awaited is not unhandled (await still sees it). */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/**
 * Decodes `source` with ffmpeg (at most `maxSeconds` and a margin) to float PCM at the denoiser's rate, read as the
 * denoiser consumes it, and writes a PCM16 WAV at the input's rate and channels to `output`: memory stays bounded.
 * Rejects with DecodedTooLong once the decoded audio passes `maxSeconds`; resolves the seconds decoded (billed).
 */
export async function denoiseFile(opts: {
  ffmpeg: string; source: AudioSource; output: string; info: AudioInfo; denoiser: Denoiser; signal: AbortSignal; maxSeconds: number;
}): Promise<{ frames: number; decodedSeconds: number }> {
  const { info, denoiser, signal } = opts;
  const C = info.channels;
  const rate = denoiser.sampleRate;
  const resampleBack = info.sampleRate !== rate;
  const procs: ChildProcess[] = [];
  const kill = () => procs.forEach((p) => p.exitCode === null && p.kill('SIGKILL'));
  signal.addEventListener('abort', kill, { once: true });
  const session = await denoiser.open(C);
  let fh: Awaited<ReturnType<typeof open>> | null = null;
  try {
    fh = await open(opts.output, 'w');
    const out = fh;
    const dec = spawn(opts.ffmpeg, ['-nostdin', '-v', 'error', ...opts.source.inputArgs, '-map', '0:a:0', '-vn', '-t', String(opts.maxSeconds + CAP_MARGIN_SECONDS), '-ac', String(C), '-ar', String(rate), '-f', 'f32le', '-acodec', 'pcm_f32le', 'pipe:1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    procs.push(dec);
    const decDone = exited(dec, 'decoder');
    let pos = 44;
    let pcmBytes = 0;
    await out.write(Buffer.alloc(44), 0, 44, 0);
    const writePcm = async (b: Buffer) => {
      if (!b.length) return;
      await out.write(b, 0, b.length, pos);
      pos += b.length;
      pcmBytes += b.length;
    };
    // Back to the input's rate: a second ffmpeg; at the same rate, convert here.
    let enc: ChildProcess | null = null;
    let encDone: Promise<void> = Promise.resolve();
    let encWritten: Promise<void> = Promise.resolve();
    if (resampleBack) {
      enc = spawn(opts.ffmpeg, ['-nostdin', '-v', 'error', '-protocol_whitelist', 'pipe', '-format_whitelist', 'f32le', '-f', 'f32le', '-ar', String(rate), '-ac', String(C), '-i', 'pipe:0', '-ar', String(info.sampleRate), '-ac', String(C), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'], { stdio: ['pipe', 'pipe', 'pipe'] });
      procs.push(enc);
      encDone = exited(enc, 'encoder');
      enc.stdin!.on('error', () => {});
      encWritten = handled((async () => {
        for await (const c of enc!.stdout!) await writePcm(c as Buffer);
      })());
    }
    const emit = async (y: Float32Array) => {
      if (!y.length) return;
      if (enc) {
        const b = Buffer.from(y.buffer, y.byteOffset, y.byteLength);
        const stdin = enc.stdin!;
        if (signal.aborted) throw signal.reason;
        if (!stdin.write(b)) {
          // A killed encoder never drains: its stdin closes (or already has).
          if (!stdin.destroyed) {
            await new Promise<void>((r) => {
              const done = () => (stdin.off('drain', done), stdin.off('close', done), r());
              stdin.once('drain', done);
              stdin.once('close', done);
            });
          }
          if (signal.aborted) throw signal.reason;
          if (stdin.destroyed) throw new Error('the encoder stopped taking audio');
        }
      } else {
        const b = Buffer.allocUnsafe(y.length * 2);
        for (let i = 0; i < y.length; i++) b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(y[i]! * 32768))), i * 2);
        await writePcm(b);
      }
    };
    let carry = Buffer.alloc(0);
    let decodedSamples = 0;
    const frameBytes = 4 * C;
    for await (const chunk of dec.stdout!) {
      if (signal.aborted) throw signal.reason;
      const b = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      const usable = b.length - (b.length % frameBytes);
      carry = Buffer.from(b.subarray(usable));
      if (!usable) continue;
      // A copy we own (its buffer is transferred to the worker).
      const x = new Float32Array(usable / 4);
      Buffer.from(x.buffer).set(b.subarray(0, usable));
      decodedSamples += x.length / C;
      if (decodedSamples > opts.maxSeconds * rate) throw new DecodedTooLong(opts.maxSeconds);
      await emit(await session.process(x));
    }
    await decDone;
    if (decodedSamples === 0) throw new NoAudioDecoded();
    await emit(await session.flush());
    if (enc) {
      enc.stdin!.end();
      await Promise.all([encDone, encWritten]);
    }
    await out.write(wavHeader(pcmBytes, info.sampleRate, C), 0, 44, 0);
    return { frames: pcmBytes / (2 * C), decodedSeconds: decodedSamples / rate };
  } catch (e) {
    kill();
    throw signal.aborted ? signal.reason : e;
  } finally {
    signal.removeEventListener('abort', kill);
    session.close();
    await fh?.close().catch(() => {});
  }
}
