import { ConnectionError, errorFor, WebSocketClosedError, type SawtError } from './errors.js';
import { base64ToBytes } from './pcm.js';
import { DEFAULT_SAMPLE_RATE, type Alignment } from '@sawt/protocol';
import type { OutputFormat } from './generated/api-types.js';
import type { DictionaryLocator } from './pronunciation-dictionaries.js';

export type { OutputFormat };

/** The part of the WHATWG WebSocket the session uses (browsers, Node ≥ 22, the ws package). */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- browser WebSocket and ws events differ
  addEventListener(type: string, listener: (ev: any) => void): void;
  /** The ws package can stop reading the socket: used for backpressure when present. */
  pause?: () => void;
  resume?: () => void;
}

export interface SpeechSessionOptions {
  voice_id: string;
  /** Default: the server's default model. */
  model_id?: string;
  voice_settings?: { stability?: number; similarity_boost?: number; speed?: number };
  /** Format of every message's audio (default pcm_24000); one stream across the session's flushes. */
  output_format?: OutputFormat;
  /** "ssml": the text messages are fragments of one SSML text; <mark>s come back as AudioEvent.marks. Default "text". */
  text_type?: TextType;
  /** Up to 3 of the account's pronunciation dictionaries, applied to every text of the session. */
  pronunciation_dictionary_locators?: DictionaryLocator[];
  /**
   * Unread audio bytes above which the session stops reading a WebSocket that can pause (the ws package), so the
   * server pauses generation too. Default 2 MiB. Platform WebSockets cannot pause: audio waits in memory.
   */
  highWaterBytes?: number;
  /** send() waits while the socket holds more unsent bytes than this. Default 65536. */
  sendHighWaterBytes?: number;
}

/** Character timings of the audio in the same message, in ms from the start of the text piece. */
export type { Alignment };

/** How a request's text is read: plain text (its only markup <break time="…"/>) or SSML. */
export type TextType = 'text' | 'ssml';

/** An SSML <mark name="…"/> reached in the audio, timed like the alignment. */
export interface Mark {
  name: string;
  timeMs: number;
}

export interface AudioEvent {
  type: 'audio';
  /** The audio's bytes in the session's output_format (PCM16 little-endian mono with pcm_*); empty on a bare end-of-flush marker. */
  audio: Uint8Array;
  /** The same bytes as `audio` (the name from when the WebSocket sent only PCM). */
  pcm: Uint8Array;
  sampleRate: number;
  alignment?: Alignment;
  /** The <mark>s reached in this message's audio (SSML), timed like `alignment`. */
  marks?: Mark[];
  /** The last audio of a flush. */
  isFinal: boolean;
}
export interface ErrorEvent {
  type: 'error';
  error: SawtError;
}
export type SpeechEvent = AudioEvent | ErrorEvent;

type Listeners = {
  audio: (e: AudioEvent) => void;
  alignment: (a: Alignment, e: AudioEvent) => void;
  marks: (marks: Mark[], e: AudioEvent) => void;
  final: (e: AudioEvent) => void;
  error: (error: SawtError) => void;
  close: (info: { code: number; reason: string }) => void;
};

const OPEN = 1;

/**
 * A text-to-speech WebSocket session: audio as events (`on('audio')`, `on('final')`…) or from the async iterator, not
 * both. The iterator ends when the socket closes normally, else throws WebSocketClosedError or the server's last error.
 */
export class SpeechSession implements AsyncIterable<SpeechEvent> {
  private readonly listeners: { [K in keyof Listeners]: Set<Listeners[K]> } = {
    audio: new Set(), alignment: new Set(), marks: new Set(), final: new Set(), error: new Set(), close: new Set(),
  };
  private queue: SpeechEvent[] = [];
  private queuedBytes = 0;
  private queueing = true;
  private iterating = false;
  private paused = false;
  private wake: (() => void) | null = null;
  private closeInfo: { code: number; reason: string } | null = null;
  private lastError: SawtError | null = null;
  private closeRequested = false;
  private readonly closed: Promise<void>;
  private readonly highWaterBytes: number;
  private readonly sendHighWaterBytes: number;

  /** @internal use SawtClient.connect */
  constructor(private readonly ws: WebSocketLike, options: SpeechSessionOptions) {
    this.highWaterBytes = options.highWaterBytes ?? 2 * 1024 * 1024;
    this.sendHighWaterBytes = options.sendHighWaterBytes ?? 65536;
    this.closed = new Promise((resolve) => ws.addEventListener('close', (ev: { code: number; reason: string }) => {
      this.closeInfo = { code: ev.code, reason: String(ev.reason ?? '') };
      for (const f of this.listeners.close) f(this.closeInfo);
      this.notify();
      resolve();
    }));
    ws.addEventListener('message', (ev: { data: unknown }) => this.onMessage(ev.data));
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Listeners>(type: K, fn: Listeners[K]): () => void {
    // Listeners alone would leave the iterator's queue growing unread.
    if (type === 'audio' && !this.iterating) this.stopQueueing();
    this.listeners[type].add(fn);
    return () => this.listeners[type].delete(fn);
  }

  /**
   * Sends a text chunk. `flush` makes the server speak everything buffered (its last audio then has isFinal). Resolves
   * once the socket's send buffer is below sendHighWaterBytes, so a fast text producer waits for the network.
   */
  async send(text: string, opts: { flush?: boolean; tryTriggerGeneration?: boolean } = {}): Promise<void> {
    this.sendJson({ type: 'text', text, ...(opts.flush ? { flush: true } : {}), ...(opts.tryTriggerGeneration ? { try_trigger_generation: true } : {}) });
    while (this.ws.readyState === OPEN && this.ws.bufferedAmount > this.sendHighWaterBytes) await new Promise((r) => setTimeout(r, 10));
  }

  /** Speaks whatever text is buffered; its last audio has isFinal. */
  flush(): Promise<void> {
    return this.send('', { flush: true });
  }

  /** Drops the text the server has not started speaking. */
  clear(): void {
    this.sendJson({ type: 'clear' });
  }

  /** Sends closeConnection and waits for the socket to close (audio already generated still arrives first). */
  async close(): Promise<void> {
    if (!this.closeInfo && !this.closeRequested) {
      this.closeRequested = true;
      if (this.ws.readyState === OPEN) this.sendJson({ type: 'closeConnection' });
      else this.ws.close(1000);
    }
    await this.closed;
  }

  /** Audio events until the next isFinal (the end of a flush). */
  async *untilFinal(): AsyncGenerator<AudioEvent> {
    for await (const e of this) {
      if (e.type === 'error') throw e.error;
      yield e;
      if (e.isFinal) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SpeechEvent> {
    this.iterating = true;
    for (;;) {
      const e = this.queue.shift();
      if (e) {
        if (e.type === 'audio') this.queuedBytes -= e.pcm.length;
        if (this.paused && this.queuedBytes <= this.highWaterBytes / 2) {
          this.paused = false;
          this.ws.resume?.();
        }
        yield e;
        continue;
      }
      if (this.closeInfo) {
        const { code, reason } = this.closeInfo;
        if (code === 1000 || (this.closeRequested && code === 1005)) return;
        throw this.lastError ?? new WebSocketClosedError(code, reason);
      }
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  /** @internal */
  sendJson(msg: unknown): void {
    if (this.ws.readyState !== OPEN) throw new WebSocketClosedError(this.closeInfo?.code ?? 1006, this.closeInfo?.reason ?? 'not open');
    this.ws.send(JSON.stringify(msg));
  }

  /** @internal resolves when the server accepted initConnection */
  initialized(options: SpeechSessionOptions): Promise<this> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (err: Error | null) => {
        if (done) return;
        done = true;
        if (err) {
          reject(err);
          try { this.ws.close(1000); } catch { /* already closed */ }
        } else resolve(this);
      };
      this.initWaiter = finish;
      this.ws.addEventListener('open', () => {
        const { voice_id, model_id, voice_settings, output_format, text_type, pronunciation_dictionary_locators } = options;
        this.sendJson({ type: 'initConnection', voice_id, model_id, voice_settings, output_format, text_type, pronunciation_dictionary_locators });
      });
      this.ws.addEventListener('error', () => finish(new ConnectionError('WebSocket connection failed', 0, 0)));
      void this.closed.then(() => finish(this.lastError ?? new WebSocketClosedError(this.closeInfo!.code, this.closeInfo!.reason)));
    });
  }

  /** Settles initialized() with the answer to initConnection: null (accepted) or the server's error. */
  private initWaiter: ((error: SawtError | null) => void) | null = null;

  private onMessage(data: unknown): void {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(String(data));
    } catch {
      return;
    }
    const error = m.type === 'error' ? (this.lastError = toError(m)) : null;
    if (m.type === 'connectionInitialized' || (error && this.initWaiter)) {
      this.initWaiter?.(error);
      this.initWaiter = null;
      return;
    }
    if (error) {
      for (const f of this.listeners.error) f(error);
      this.push({ type: 'error', error });
      return;
    }
    if (typeof m.audio === 'string') {
      const bytes = base64ToBytes(m.audio);
      const e: AudioEvent = {
        type: 'audio', audio: bytes, pcm: bytes, sampleRate: Number(m.sampleRate) || DEFAULT_SAMPLE_RATE, isFinal: m.isFinal === true,
        ...(m.alignment ? { alignment: m.alignment as Alignment } : {}),
        ...(Array.isArray(m.marks) && m.marks.length ? { marks: m.marks as Mark[] } : {}),
      };
      for (const f of this.listeners.audio) f(e);
      if (e.alignment) for (const f of this.listeners.alignment) f(e.alignment, e);
      if (e.marks) for (const f of this.listeners.marks) f(e.marks, e);
      if (e.isFinal) for (const f of this.listeners.final) f(e);
      this.push(e);
    }
  }

  private push(e: SpeechEvent): void {
    if (!this.queueing) return;
    this.queue.push(e);
    if (e.type === 'audio') this.queuedBytes += e.pcm.length;
    if (!this.paused && this.queuedBytes > this.highWaterBytes && this.ws.pause) {
      this.paused = true;
      this.ws.pause();
    }
    this.notify();
  }

  private stopQueueing(): void {
    this.queueing = false;
    this.queue = [];
    this.queuedBytes = 0;
    if (this.paused) { this.paused = false; this.ws.resume?.(); }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

function toError(m: Record<string, unknown>): SawtError {
  const code = Number(m.errorCode) || 0;
  return errorFor(code, 0, String(m.errorMessage ?? m.message ?? 'WebSocket error'));
}

export function openSpeechSession(ws: WebSocketLike, options: SpeechSessionOptions): Promise<SpeechSession> {
  if (!options?.voice_id) return Promise.reject(new TypeError('connect: voice_id is required'));
  return new SpeechSession(ws, options).initialized(options);
}
