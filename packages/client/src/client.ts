import { DEFAULT_SAMPLE_RATE, findOutputFormat } from '@sawt/protocol';
import type { ClonedVoice, DenoiseForm, Model, OutputFormat, TextToSpeechBody, Voice, VoiceCloneForm, VoicePreviewForm } from './generated/api-types.js';
import { appendFields, appendFile, request, type AudioInput, type RequestOptions, type RetryOptions, type Transport } from './http.js';
import { Jobs } from './jobs.js';
import { PronunciationDictionaries } from './pronunciation-dictionaries.js';
import { base64ToBytes, Pcm16Aligner } from './pcm.js';
import { openSpeechSession, type Alignment, type Mark, type SpeechSession, type SpeechSessionOptions, type WebSocketLike } from './speech-session.js';

export interface SawtClientOptions {
  /** The API's base address, e.g. `https://tts.example.com/api/v1` (`/api/v1` is added when the URL has no path). */
  baseUrl: string;
  apiKey: string;
  /** Retries of 429 answers for every call (off by default); a call's own `retry` wins. */
  retry?: RetryOptions;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** A WebSocket class for connect() where the platform has none (Node 20): e.g. `import WebSocket from 'ws'`. */
  WebSocket?: new (url: string) => WebSocketLike;
}

/** Text-to-speech fields as the server takes them (text_type, dictionaries…); `streaming` is set by the method called. */
export type SpeechRequest = Omit<TextToSpeechBody, 'streaming'>;
export type PreviewRequest = Omit<VoicePreviewForm, 'file'> & { file: AudioInput; fileName?: string };
export type CloneRequest = Omit<VoiceCloneForm, 'voice_file' | 'reference_audio_file'> & {
  /** The preview's audio (a WAV file, or the raw PCM16 24 kHz the preview streamed). */
  voice_file: AudioInput;
  /** The sample the preview was made from. */
  reference_audio_file: AudioInput;
};

/** The audio's bytes as the server sends them, in the chosen format (PCM16 in whole samples for pcm_*, wav_*). */
export interface AudioStream extends AsyncIterable<Uint8Array> {
  readonly sampleRate: number;
  readonly format: OutputFormat;
}
/** An AudioStream of PCM16 mono (the default format of streams, pcm_24000). */
export type PcmStream = AudioStream;

/** Audio with the timings of every character of the text as sent (POST …/with-timestamps). */
export interface TimedAudio {
  /** The audio's bytes in the request's output_format (a WAV at 24 kHz by default); of a stream, one chunk. */
  audio: Uint8Array;
  /** Character timings in ms from the start of the audio as played; null on a chunk without characters. */
  alignment: Alignment | null;
  /** The SSML <mark>s this chunk reaches (text_type "ssml"), in ms from the start of the audio as played. */
  marks?: Mark[];
}

/** The sample rate of a format name (CODEC_RATE[_KBITS]). */
export function formatSampleRate(format: string): number {
  return findOutputFormat(format)?.sampleRate ?? DEFAULT_SAMPLE_RATE;
}

export class SawtClient {
  private readonly transport: Transport;
  private readonly WebSocketClass?: new (url: string) => WebSocketLike;
  /** Long-form jobs: create, get, list, cancel, download (and captions, chapters, wait). */
  readonly jobs: Jobs;
  /** The account's pronunciation dictionaries: create (rules or a PLS file), list, get, update, delete. */
  readonly pronunciationDictionaries: PronunciationDictionaries;

  constructor(options: SawtClientOptions) {
    if (!options?.baseUrl) throw new TypeError('SawtClient: baseUrl is required, e.g. http://127.0.0.1:8080/api/v1');
    if (!options.apiKey) throw new TypeError('SawtClient: apiKey is required');
    const url = new URL(options.baseUrl);
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/api/v1';
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (!fetchFn) throw new TypeError('SawtClient: this platform has no fetch; pass options.fetch');
    this.transport = { baseUrl: url.toString().replace(/\/+$/, ''), apiKey: options.apiKey, fetch: fetchFn.bind(globalThis), retry: options.retry ?? {} };
    this.WebSocketClass = options.WebSocket;
    this.jobs = new Jobs(this.transport);
    this.pronunciationDictionaries = new PronunciationDictionaries(this.transport);
  }

  /** The base address in use (ends with /api/v1). */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** GET /models: the models this server offers. */
  async models(opts: RequestOptions = {}): Promise<Model[]> {
    return (await request(this.transport, 'GET', '/models', opts)).json();
  }

  /** GET /voices: built-in voices and the account's cloned ones, each with the models it speaks on; `modelId`: only that model's voices. */
  async voices(opts: RequestOptions & { modelId?: string } = {}): Promise<Voice[]> {
    const { modelId, ...rest } = opts;
    return (await request(this.transport, 'GET', modelId === undefined ? '/voices' : `/voices?model_id=${encodeURIComponent(modelId)}`, rest)).json();
  }

  /** POST /text-to-speech/{modelId} with streaming=false: the complete file in `body.output_format` (default wav_24000). */
  async textToSpeech(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): Promise<Uint8Array> {
    const res = await request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}`, { ...opts, json: { ...body, streaming: false } });
    return new Uint8Array(await res.arrayBuffer());
  }

  /**
   * POST /text-to-speech/{modelId} with streaming=true: the audio in `body.output_format` (default pcm_24000) as it is
   * generated, chunks that concatenate to one file. The request starts at the first iteration; breaking out cancels it.
   */
  streamTextToSpeech(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): AudioStream {
    const format = body.output_format ?? 'pcm_24000';
    return this.audioStream(() => request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}`, { ...opts, json: { ...body, streaming: true } }), opts.signal, format);
  }

  /** POST /text-to-speech/{modelId}/with-timestamps: the audio in `body.output_format` and every character's timing. */
  async textToSpeechWithTimestamps(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): Promise<TimedAudio> {
    const res = await request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}/with-timestamps`, { ...opts, json: body });
    return timedAudio(await res.json());
  }

  /**
   * POST /text-to-speech/{modelId}/stream/with-timestamps: chunks of audio (`body.output_format`, default pcm_24000)
   * with the timings of their characters, in order. Breaking out cancels the request.
   */
  streamTextToSpeechWithTimestamps(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): AsyncIterable<TimedAudio> {
    const start = () => request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}/stream/with-timestamps`, { ...opts, json: body });
    return readBody(start, opts.signal, () => {
      const decoder = new TextDecoder();
      let buffered = '';
      return function* (chunk) {
        buffered += chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) yield timedAudio(JSON.parse(line));
        }
        if (!chunk && buffered.trim()) yield timedAudio(JSON.parse(buffered));
      };
    });
  }

  /** POST /voices/preview: the text spoken in a voice made from the sample, streamed as PCM16 24 kHz mono. */
  previewVoice(req: PreviewRequest, opts: RequestOptions = {}): PcmStream {
    const { file, fileName, ...fields } = req;
    return this.audioStream(() => {
      const form = new FormData();
      appendFields(form, fields);
      appendFile(form, 'file', file, fileName ?? 'sample.wav');
      return request(this.transport, 'POST', '/voices/preview', { ...opts, body: form });
    }, opts.signal, 'pcm_24000');
  }

  /** POST /voices/clone: stores the voice; its voice_id works at once. */
  async cloneVoice(req: CloneRequest, opts: RequestOptions = {}): Promise<ClonedVoice> {
    const { voice_file, reference_audio_file, ...fields } = req;
    const form = new FormData();
    appendFields(form, fields);
    const isRaw = !(voice_file instanceof Blob) && !looksLikeWav(voice_file);
    appendFile(form, 'voice_file', voice_file, isRaw ? 'preview.pcm' : 'preview.wav');
    appendFile(form, 'reference_audio_file', reference_audio_file, 'reference.wav');
    return (await request(this.transport, 'POST', '/voices/clone', { ...opts, body: form })).json();
  }

  /** DELETE /voices/{voiceId}: removes one of the account's cloned voices. */
  async deleteVoice(voiceId: string, opts: RequestOptions = {}): Promise<void> {
    const res = await request(this.transport, 'DELETE', `/voices/${encodeURIComponent(voiceId)}`, opts);
    await res.body?.cancel();
  }

  /** POST /denoise: the recording without its background noise, as a WAV file. */
  async denoise(audio: DenoiseForm['audio'] | AudioInput, opts: RequestOptions & { fileName?: string } = {}): Promise<Uint8Array> {
    const form = new FormData();
    appendFile(form, 'audio', audio, opts.fileName ?? 'audio.wav');
    const res = await request(this.transport, 'POST', '/denoise', { ...opts, body: form });
    return new Uint8Array(await res.arrayBuffer());
  }

  /** Opens the text-to-speech WebSocket: resolves after connectionInitialized, rejects with the server's error. */
  connect(options: SpeechSessionOptions): Promise<SpeechSession> {
    const WS = this.WebSocketClass ?? (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
    if (!WS) throw new TypeError('SawtClient.connect: this platform has no WebSocket; pass options.WebSocket (e.g. from the ws package)');
    const url = new URL(`${this.transport.baseUrl}/websocket/text-to-speech`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('x-api-key', this.transport.apiKey);
    return openSpeechSession(new WS(url.toString()), options);
  }

  private audioStream(start: () => Promise<Response>, signal: AbortSignal | undefined, format: OutputFormat): AudioStream {
    const aligned = format.startsWith('pcm_') || format.startsWith('wav_');
    return {
      sampleRate: formatSampleRate(format),
      format,
      ...readBody(start, signal, () => {
        const aligner = new Pcm16Aligner();
        return function* (chunk) {
          const bytes = chunk && aligned ? aligner.push(chunk) : chunk;
          if (bytes?.length) yield bytes;
        };
      }),
    };
  }
}

/** Starts the request per iteration and reads its body through a fresh `each` (chunks, then null); leaving cancels. */
function readBody<T>(start: () => Promise<Response>, signal: AbortSignal | undefined, makeEach: () => (chunk: Uint8Array | null) => Iterable<T>): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      const res = await start();
      if (!res.body) return;
      const reader = res.body.getReader();
      const each = makeEach();
      let done = false;
      try {
        for (;;) {
          const r = await reader.read();
          done = r.done;
          for (const x of each(r.done ? null : r.value)) yield x;
          if (r.done) return;
        }
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        throw e;
      } finally {
        if (!done) await reader.cancel().catch(() => {});
      }
    },
  };
}

function timedAudio(m: { audio_base64?: string; alignment?: Alignment | null; marks?: Mark[] }): TimedAudio {
  return { audio: base64ToBytes(m.audio_base64 ?? ''), alignment: m.alignment ?? null, ...(Array.isArray(m.marks) && m.marks.length ? { marks: m.marks } : {}) };
}

function looksLikeWav(b: Uint8Array | ArrayBuffer): boolean {
  const u = b instanceof Uint8Array ? b : new Uint8Array(b);
  return u.length >= 12 && String.fromCharCode(u[0]!, u[1]!, u[2]!, u[3]!) === 'RIFF';
}
