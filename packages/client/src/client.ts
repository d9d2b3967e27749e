import type { ClonedVoice, DenoiseForm, Model, TextToSpeechBody, Voice, VoiceCloneForm, VoicePreviewForm } from './generated/api-types.js';
import { appendFields, appendFile, request, type AudioInput, type RequestOptions, type RetryOptions, type Transport } from './http.js';
import { Pcm16Aligner } from './pcm.js';
import { openSpeechSession, type SpeechSession, type SpeechSessionOptions, type WebSocketLike } from './speech-session.js';

export interface SawtClientOptions {
  /** The API's base address, e.g. `https://tts.example.com/api/v1` (`/api/v1` is added when the URL has no path). */
  baseUrl: string;
  apiKey: string;
  /** Retries of 429 answers for every call (off by default); a call's own `retry` wins. */
  retry?: RetryOptions;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * A WebSocket class for connect() where the platform has none (Node 20 without
   * --experimental-websocket): e.g. `import WebSocket from 'ws'`. Browsers and Node ≥ 22 need nothing.
   */
  WebSocket?: new (url: string) => WebSocketLike;
}

/** Text-to-speech fields as the server takes them; `streaming` is set by the method called. */
export type SpeechRequest = Omit<TextToSpeechBody, 'streaming'>;
export type PreviewRequest = Omit<VoicePreviewForm, 'file'> & { file: AudioInput; fileName?: string };
export type CloneRequest = Omit<VoiceCloneForm, 'voice_file' | 'reference_audio_file'> & {
  /** The preview's audio (a WAV file, or the raw PCM16 24 kHz the preview streamed). */
  voice_file: AudioInput;
  /** The sample the preview was made from. */
  reference_audio_file: AudioInput;
};

/** An async iterable of PCM16 mono chunks (whole samples), with the stream's sample rate. */
export interface PcmStream extends AsyncIterable<Uint8Array> {
  readonly sampleRate: number;
}

export class SawtClient {
  private readonly transport: Transport;
  private readonly WebSocketClass?: new (url: string) => WebSocketLike;

  constructor(options: SawtClientOptions) {
    if (!options?.baseUrl) throw new TypeError('SawtClient: baseUrl is required, e.g. http://127.0.0.1:8080/api/v1');
    if (!options.apiKey) throw new TypeError('SawtClient: apiKey is required');
    const url = new URL(options.baseUrl);
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/api/v1';
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (!fetchFn) throw new TypeError('SawtClient: this platform has no fetch; pass options.fetch');
    this.transport = { baseUrl: url.toString().replace(/\/+$/, ''), apiKey: options.apiKey, fetch: fetchFn.bind(globalThis), retry: options.retry ?? {} };
    this.WebSocketClass = options.WebSocket;
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

  /** POST /text-to-speech/{modelId} with streaming=false: resolves to the complete WAV file. */
  async textToSpeech(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): Promise<Uint8Array> {
    const res = await request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}`, { ...opts, json: { ...body, streaming: false } });
    return new Uint8Array(await res.arrayBuffer());
  }

  /**
   * POST /text-to-speech/{modelId} with streaming=true: PCM16 24 kHz mono chunks as
   * the server generates them. The request starts at the first iteration; an error
   * answer is thrown from there. Breaking out of the loop cancels the request.
   */
  streamTextToSpeech(modelId: string, body: SpeechRequest, opts: RequestOptions = {}): PcmStream {
    return this.pcmStream(() => request(this.transport, 'POST', `/text-to-speech/${encodeURIComponent(modelId)}`, { ...opts, json: { ...body, streaming: true } }), opts.signal);
  }

  /** POST /voices/preview: the text spoken in a voice made from the sample, streamed as PCM16 24 kHz mono. */
  previewVoice(req: PreviewRequest, opts: RequestOptions = {}): PcmStream {
    const { file, fileName, ...fields } = req;
    return this.pcmStream(() => {
      const form = new FormData();
      appendFields(form, fields);
      appendFile(form, 'file', file, fileName ?? 'sample.wav');
      return request(this.transport, 'POST', '/voices/preview', { ...opts, body: form });
    }, opts.signal);
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

  /**
   * Opens the text-to-speech WebSocket and initializes it (resolves after
   * connectionInitialized; rejects with the server's error, e.g. AuthenticationError).
   */
  connect(options: SpeechSessionOptions): Promise<SpeechSession> {
    const WS = this.WebSocketClass ?? (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
    if (!WS) throw new TypeError('SawtClient.connect: this platform has no WebSocket; pass options.WebSocket (e.g. from the ws package)');
    const url = new URL(`${this.transport.baseUrl}/websocket/text-to-speech`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('x-api-key', this.transport.apiKey);
    return openSpeechSession(new WS(url.toString()), options);
  }

  private pcmStream(start: () => Promise<Response>, signal?: AbortSignal): PcmStream {
    return {
      sampleRate: 24000,
      async *[Symbol.asyncIterator]() {
        const res = await start();
        if (!res.body) return;
        const reader = res.body.getReader();
        const aligner = new Pcm16Aligner();
        let done = false;
        try {
          for (;;) {
            const r = await reader.read();
            if (r.done) { done = true; return; }
            const pcm = aligner.push(r.value);
            if (pcm.length) yield pcm;
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
}

function looksLikeWav(b: Uint8Array | ArrayBuffer): boolean {
  const u = b instanceof Uint8Array ? b : new Uint8Array(b);
  return u.length >= 12 && String.fromCharCode(u[0]!, u[1]!, u[2]!, u[3]!) === 'RIFF';
}
