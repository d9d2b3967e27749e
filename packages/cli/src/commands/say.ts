import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { outputFormat, speechPcm, tokens, wavHeader, type SawtApp, type VoiceInfo } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import { cannotRead, UsageError } from '../args.js';
import { FILE_FORMATS, audioFile, formatForFile } from './audio-file.js';
import { CharacterProgress } from './progress.js';

export interface SayOptions {
  text: string;
  model?: string;
  voice?: string;
  dialect?: string;
  /** WAV file to write; absent: WAV on stdout when it is redirected, else played (ffplay, aplay). */
  out?: string;
  /** Speak through this server's API instead of in-process. */
  server?: string;
  key?: string;
  speed?: number;
  /** Speak this UTF-8 text file (a book, a report) in-process, paragraph by paragraph, into one --out file (format by extension). */
  file?: string;
  /** With --file: no progress line; one JSON summary on stdout at the end. */
  json?: boolean;
}

const RATE = 24000;

/** `sawt say TEXT`: in-process or, with --server, through a Sawt's API; played as it arrives, or written to --out. */
export async function say(opts: SayOptions, io: { stdout?: NodeJS.WriteStream; stderr?: NodeJS.WritableStream } = {}): Promise<void> {
  const stdout = io.stdout ?? process.stdout;
  if (opts.file !== undefined) return sayFile(opts, io.stderr ?? process.stderr, stdout);
  if (opts.json) throw new UsageError('--json is for --file');
  if (opts.text.trim() === '') throw new UsageError('say needs the TEXT to speak');
  checkSpeed(opts);
  if (opts.server && !opts.key) throw new UsageError('--server needs --key (an API key of that server)');
  if (!opts.server && opts.key) throw new UsageError('--key is for --server; in-process synthesis needs no key');
  const sink = await openSink(opts.out, stdout);
  try {
    if (opts.server) await sink.write(await remoteSpeech(opts));
    else await withAdminApp(async (app) => sink.write(await localSpeech(app, opts)));
    await sink.done?.();
  } catch (e) {
    await sink.abort();
    throw e;
  }
}

function checkSpeed(opts: SayOptions): void {
  if (opts.speed !== undefined && !(opts.speed >= 0.7 && opts.speed <= 1.2)) throw new UsageError(`--speed must be a number between 0.7 and 1.2 but received ${opts.speed}`);
}

/** Parts of a file's text: its blank-line paragraphs, a long one cut after a sentence's end. */
export function fileParts(text: string, maxChars = 2000): string[] {
  const parts: string[] = [];
  for (const paragraph of text.replace(/^\uFEFF/u, '').split(/\r?\n\s*\r?\n/u)) {
    let rest = paragraph.trim();
    while (rest.length > maxChars) {
      // The last sentence end (. ! ? ؟ or a line end) within maxChars, else a space, else a hard cut.
      const window = rest.slice(0, maxChars);
      const cut = Math.max(...['.', '!', '?', '\u061F', '\n'].map((c) => window.lastIndexOf(c))) + 1 || window.lastIndexOf(' ') + 1 || maxChars;
      parts.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    if (rest) parts.push(rest);
  }
  return parts.filter((p) => /\p{L}/u.test(p));
}

/** `sawt say --file book.txt --out book.mp3`: in-process, paragraph by paragraph, through one encoder into one file. */
async function sayFile(opts: SayOptions, stderr: NodeJS.WritableStream, stdout: NodeJS.WriteStream): Promise<void> {
  if (opts.text.trim() !== '') throw new UsageError('say takes TEXT or --file, not both');
  if (!opts.out) throw new UsageError(`say --file needs --out FILE (${Object.keys(FILE_FORMATS).join(', ')})`);
  const format = formatForFile(opts.out);
  if (opts.server) throw new UsageError('say --file speaks in-process; for a server, use sawt jobs submit --file');
  checkSpeed(opts);
  const file = opts.file!;
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => { throw cannotRead('--file', file, e); });
  const parts = fileParts(text);
  if (parts.length === 0) throw new UsageError(`--file: ${JSON.stringify(file)} has no text to speak`);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const progress = new CharacterProgress('say', total, !opts.json && (stderr as NodeJS.WriteStream).isTTY === true ? (stderr as NodeJS.WriteStream) : null);
  let done = 0;
  let samples = 0;
  let bytes = 0;
  const sink = audioFile(opts.out, format, RATE);
  try {
    await withAdminApp(async (app) => {
      const speakParts = async function* () {
        progress.update(0);
        for (const part of parts) {
          for await (const pcm of await localSpeech(app, { ...opts, text: part })) {
            samples += (pcm as Buffer).length / 2;
            yield pcm as Buffer;
          }
          done += part.length;
          progress.update(done);
        }
      };
      bytes = await sink.write(Readable.from(speakParts()));
    });
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    progress.done();
  }
  if (opts.json) {
    const summary = { out: opts.out, format: format.name, bytes, characters: total, parts: parts.length, audio_seconds: Math.round((samples / RATE) * 1000) / 1000 };
    stdout.write(`${JSON.stringify(summary)}\n`);
  }
}

async function localSpeech(app: SawtApp, opts: SayOptions): Promise<Readable> {
  const models = app.get(tokens.models);
  const modelId = opts.model ?? models.defaultModelId();
  const model = models.get(modelId);
  if (!model) throw new UsageError(`--model: no model '${modelId}' (models: ${models.list().map((m) => m.model_id).join(', ')})`);
  if (!model.available) throw new Error(`model '${modelId}' is not available: its files are missing (see 'sawt models pull')`);
  const catalog = app.get(tokens.voices);
  const voices = (await catalog.list('')).filter((v) => catalog.modelsFor?.(v.voice_id)?.includes(modelId) ?? true);
  const voiceId = pickVoice(voices, opts, modelId);
  return speechPcm(await app.get(tokens.synthesizer).synthesize({ modelId, voiceId, accountId: '', text: opts.text, speed: opts.speed ?? 1, stability: 0.5, sampleRate: RATE }));
}

function pickVoice(voices: VoiceInfo[], opts: SayOptions, modelId: string): string {
  if (opts.voice) {
    const v = voices.find((x) => x.voice_id === opts.voice);
    if (!v) throw new UsageError(`--voice: no voice '${opts.voice}' for model ${modelId} (voices: ${voices.map((x) => x.voice_id).join(', ')})`);
    if (opts.dialect && !v.dialect.includes(opts.dialect)) throw new UsageError(`--voice ${opts.voice} speaks ${v.dialect.join(', ')}, not ${opts.dialect}`);
    return v.voice_id;
  }
  const dialect = opts.dialect ?? 'fusha';
  const v = voices.find((x) => x.dialect.includes(dialect)) ?? (opts.dialect ? undefined : voices[0]);
  if (!v) {
    const dialects = [...new Set(voices.flatMap((x) => x.dialect))];
    throw new UsageError(`--dialect: no voice of model ${modelId} speaks '${dialect}' (dialects: ${dialects.join(', ')})`);
  }
  return v.voice_id;
}

/** The API's streaming text-to-speech: PCM16 24 kHz mono as it is generated. */
async function remoteSpeech(opts: SayOptions): Promise<Readable> {
  const base = opts.server!.replace(/\/+$/, '').replace(/\/api\/v1$/, '') + '/api/v1';
  const headers = { 'x-api-key': opts.key!, 'content-type': 'application/json' };
  const reach = (path: string, init: RequestInit = {}) => fetch(base + path, { headers, ...init }).catch((e: Error) => {
    throw new Error(`cannot reach ${base}: ${(e.cause as Error | undefined)?.message ?? e.message}`);
  });
  const get = async (path: string) => {
    const r = await reach(path);
    if (!r.ok) throw await apiError(r);
    return r.json() as Promise<unknown>;
  };
  const modelId = opts.model ?? ((await get('/models')) as Array<{ model_id: string }>)[0]?.model_id;
  if (!modelId) throw new Error(`${base} offers no model`);
  // The model's own voices (GET /voices?model_id=): a voice another model lacks is never picked.
  const voiceId = opts.voice ?? pickVoice((await get(`/voices?model_id=${encodeURIComponent(modelId)}`)) as VoiceInfo[], { ...opts, voice: undefined }, modelId);
  const r = await reach(`/text-to-speech/${encodeURIComponent(modelId)}`, {
    method: 'POST', body: JSON.stringify({ voice_id: voiceId, text: opts.text, stability: 0.5, speed: opts.speed ?? 1, streaming: true }),
  });
  if (!r.ok || !r.body) throw await apiError(r);
  return Readable.fromWeb(r.body as import('node:stream/web').ReadableStream);
}

async function apiError(r: Response): Promise<Error> {
  const e = (await r.json().catch(() => null)) as { errorCode?: number; errorMessage?: string } | null;
  return new Error(`the server answered ${r.status}${e?.errorMessage ? ` (${e.errorCode}): ${e.errorMessage}` : ''}`);
}

interface Sink {
  write(pcm: Readable): Promise<unknown>;
  done?(): Promise<void>;
  abort(): Promise<void>;
}

/** Where the audio goes: a WAV file, WAV on a redirected stdout, or a player fed as audio arrives. */
async function openSink(out: string | undefined, stdout: NodeJS.WriteStream): Promise<Sink> {
  if (out) return audioFile(out, outputFormat('wav_24000'), RATE);
  // Redirected (sawt say … > a.wav, | ffplay -): the WAV goes to stdout.
  if (!stdout.isTTY) return { write: (pcm) => streamingWav(stdout, pcm), abort: async () => {} };
  const player = findPlayer();
  if (!player) throw new UsageError('no audio player found (ffplay or aplay): give --out FILE.wav, or redirect stdout to a file');
  if (!hasAudioDevice()) throw new Error(NO_AUDIO);
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> | null = null;
  let errors = '';
  return {
    async write(pcm) {
      // The player's messages are kept: ALSA's dozen lines about a missing card become one.
      child = spawn(player.cmd, player.args, { stdio: ['pipe', 'ignore', 'pipe'] });
      child.stderr!.setEncoding('utf8').on('data', (s: string) => {
        if (errors.length < 65536) errors += s;
      });
      exited = once(child, 'close').then(([code]) => code as number | null);
      child.stdin!.on('error', () => {}); // a player closed early (user quit): EPIPE is not our failure
      await streamingWav(child.stdin!, pcm);
    },
    async done() {
      const code = await exited;
      // ffplay exits 0 when it could open no audio output, having played nothing.
      if (AUDIO_OPEN_FAILED.test(errors)) throw new Error(NO_AUDIO);
      if (errors) process.stderr.write(errors);
      if (code !== 0 && code !== null) throw new Error(`${player.cmd} exited with status ${code}`);
    },
    async abort() {
      child?.kill('SIGTERM');
    },
  };
}

/** A WAV of unknown length (sizes 0xFFFFFFFF, read to the end by players), streamed as PCM arrives. */
async function streamingWav(dest: Writable | NodeJS.WriteStream, pcm: Readable): Promise<void> {
  const header = wavHeader(0, RATE);
  header.writeUInt32LE(0xffffffff, 4);
  header.writeUInt32LE(0xffffffff, 40);
  await pipeline(async function* () {
    yield header;
    yield* pcm;
  }, dest as Writable);
}

const NO_AUDIO = 'no audio device: use --out FILE';
/** What ffplay (SDL) and aplay print when no sound card or sound server answers. */
const AUDIO_OPEN_FAILED = /audio open (failed|error)|Unknown PCM|cannot find card|Failed to open audio/i;

/** An ALSA playback device or a sound server, checked before speaking; AUDIO_OPEN_FAILED catches what this misses. */
function hasAudioDevice(): boolean {
  if (process.env.PULSE_SERVER) return true;
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && ['pulse/native', 'pipewire-0'].some((f) => existsSync(`${runtime}/${f}`))) return true;
  try {
    return readdirSync('/dev/snd').some((f) => /^pcmC\d+D\d+p$/.test(f));
  } catch {
    return false;
  }
}

/** ffplay (ffmpeg) or aplay (alsa-utils), whichever is installed first. */
function findPlayer(): { cmd: string; args: string[] } | null {
  const candidates = [
    { cmd: 'ffplay', args: ['-autoexit', '-nodisp', '-loglevel', 'error', '-i', '-'] },
    { cmd: 'aplay', args: ['-q', '-'] },
  ];
  return candidates.find((c) => spawnSync(c.cmd, ['-version'], { stdio: 'ignore' }).error === undefined) ?? null;
}
