import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocket } from 'ws';
import {
  errors, isSawtError, presentedKey, meetsTextMinimum, resolveModelFor, startPaidSynthesis, validateFields, TEXT_TOO_SHORT_MESSAGE,
  type Admission, type AuthContext, type Authenticator, type ChunkInfo, type Logger, type PaidSynthesisServices,
  type RateLimiter, type SawtError, type SpeechStream,
} from '@sawt/core';
import { initFields, textFields } from './messages.js';

export { OUTPUT_FORMATS, initFields } from './messages.js';

export interface WsDeps extends PaidSynthesisServices {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  track: <T>(p: Promise<T>, cancel: () => void) => Promise<T>;
  /** Counts an open connection for the key; a SawtError when the key has too many (released by the returned function). */
  claimKey?: (keyId: string) => () => void;
}

/** Buffer length schedule for generation without a sentence end: first piece 50 chars, then 120, then 200. */
const LENGTH_SCHEDULE = [50, 120, 200];
const TRY_TRIGGER_MIN = 20;
/** The synthesizer's words for text with no letter or digit (HTTP answers them with the same 40001). */
export const NOTHING_TO_SPEAK = 'text contains nothing that can be spoken';
const SENTENCE_END = /[.!?؟\n…]/gu;

/** Per-session limits (plugin options of transport-ws). */
export interface WsLimits {
  /** A message longer than this (bytes) is answered with error 40001 and ignored; the connection stays open. */
  maxMessageBytes: number;
  /** Text waiting for generation (buffer + queued + the piece in progress, in characters); a text message that would exceed it gets 40001 and is ignored. */
  maxPendingChars: number;
  /** Generation pauses while the socket holds more than this many unsent bytes. */
  highWaterBytes: number;
  /** Above this many unsent bytes the session is closed at once with 1008 "client not reading". */
  maxBufferedBytes: number;
  /** Paused (above highWaterBytes) without relief for this long: close 1008 "client not reading". */
  stallTimeoutMs: number;
  /** A ping every interval; a client that has not answered the previous ping is terminated. */
  pingIntervalMs: number;
  /** No client message and no generation for this long: close 1000 "idle timeout". */
  idleTimeoutMs: number;
  /** No successful initConnection this long after the upgrade: error 40001, then close 1008. */
  initTimeoutMs: number;
}

export const DEFAULT_LIMITS: WsLimits = {
  maxMessageBytes: 64 * 1024,
  maxPendingChars: 100_000,
  highWaterBytes: 1 << 20,
  maxBufferedBytes: 8 << 20,
  stallTimeoutMs: 30_000,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 5 * 60_000,
  initTimeoutMs: 10_000,
};

/** Close codes and reasons used by the server. */
export const CLOSE = {
  normal: 1000,
  shutdown: 1001,
  policy: 1008,
} as const;

/** Open sessions of this process (for diagnostics and tests). */
export const liveSessions = new Set<WsSession>();

export interface WsSessionStats {
  id: string;
  /** The socket's readyState (1 open, 2 closing, 3 closed). */
  state: number;
  /** Bytes queued on the socket, not yet sent to the client. */
  bufferedAmount: number;
  /** Bytes of audio messages handed to the socket so far. */
  sentBytes: number;
  /** Audio messages handed to the socket so far. */
  audioMessages: number;
  /** Whether generation currently waits for the client to read. */
  paused: boolean;
  /** Characters waiting for generation (buffer + queue + the piece in progress). */
  pendingChars: number;
  /** Bytes buffered in the speech stream of the piece in progress. */
  streamBuffered: number;
}

interface Piece {
  text: string;
  /** The last piece of a flush: its last audio message carries isFinal. */
  flushEnd: boolean;
  /** When the piece was cut from the text (performance.now()): first-audio latency counts from here. */
  queuedAt: number;
}

interface Running {
  stream: SpeechStream | null;
  admission: Admission | null;
  cancelled: boolean;
}

interface Settings {
  modelId: string;
  voiceId: string;
  stability: number;
  speed: number;
  sampleRate: number;
}

interface Alignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}

export function errorMessage(e: SawtError): string {
  return JSON.stringify({ type: 'error', errorCode: e.code, errorMessage: e.message, message: e.message });
}

/** The key of an upgrade request: the x-api-key query parameter, then the headers (core rule). */
export function upgradeKey(req: IncomingMessage, url: URL): string | undefined {
  return presentedKey(req.headers, url.searchParams.get('x-api-key'));
}

/** Index just after the last whitespace-separated whole word, or -1. */
function lastWordCut(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (/\s/u.test(s[i]!)) return i;
  return -1;
}

/**
 * One WebSocket text-to-speech connection. Client messages are handled strictly
 * in order (a promise chain); generated text pieces go through a queue worked on
 * one at a time, so audio is sent in text order.
 */
export class WsSession {
  readonly id = randomUUID();
  private auth: AuthContext | null = null;
  private settings: Settings | null = null;
  private buffer = '';
  /** Everything received since the last flush: the text rule applies to it. */
  private sinceFlush = '';
  private pieces = 0;
  private queue: Piece[] = [];
  private running: Running | null = null;
  private working = false;
  private closed = false;
  private closing = false;
  private chain: Promise<void> = Promise.resolve();
  private alive = true;
  private timer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout;
  private initTimer: NodeJS.Timeout;
  /** The secret the connection authenticated with: checked again before every generation. */
  private secret: string | undefined;
  private releaseKey: (() => void) | null = null;
  private runningChars = 0;
  private sentBytes = 0;
  private audioMessages = 0;
  private paused = false;
  private corked = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: WsDeps,
    private readonly presented: string | undefined,
    private readonly limits: WsLimits = DEFAULT_LIMITS,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
    liveSessions.add(this);
    ws.on('message', (data, isBinary) => {
      this.idleTimer.refresh();
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      const raw = size > limits.maxMessageBytes ? undefined : isBinary ? null : data.toString();
      this.chain = this.chain.then(() => (raw === undefined ? this.onOversized(size) : this.onMessage(raw))).catch((e) => this.deps.logger.error({ err: e, ...this.logFields() }, 'ws message handling failed'));
    });
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => this.onClose());
    ws.on('error', () => {});
    this.timer = setInterval(() => this.heartbeat(), limits.pingIntervalMs);
    this.timer.unref();
    this.idleTimer = setTimeout(() => this.onIdle(), limits.idleTimeoutMs);
    this.idleTimer.unref();
    this.initTimer = setTimeout(() => this.onInitTimeout(), limits.initTimeoutMs);
    this.initTimer.unref();
    if (presented !== undefined) this.chain = this.chain.then(() => this.authenticate(presented).then(() => undefined));
  }

  private heartbeat(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  /** No client message for idleTimeoutMs: close 1000, unless audio is still being generated. */
  private onIdle(): void {
    if (this.closed || this.closing) return;
    if (this.working) {
      this.idleTimer.refresh();
      return;
    }
    this.closeWith(CLOSE.normal, 'idle timeout');
  }

  /** No initConnection in time: the connection holds resources for nothing. */
  private onInitTimeout(): void {
    if (this.closed || this.closing || this.settings) return;
    this.chain = this.chain.then(async () => {
      if (this.closed || this.closing || this.settings) return;
      await this.sendError(errors.validation(`No initConnection within ${this.limits.initTimeoutMs / 1000} s of connecting; closing`));
      this.closeWith(CLOSE.policy, 'initConnection timeout');
    });
  }

  private async onOversized(size: number): Promise<void> {
    if (this.closed || this.closing) return;
    await this.sendError(errors.validation(`Message too large: ${size} bytes; the limit is ${this.limits.maxMessageBytes} bytes`));
  }

  stats(): WsSessionStats {
    return {
      id: this.id,
      state: this.ws.readyState,
      bufferedAmount: this.ws.bufferedAmount,
      sentBytes: this.sentBytes,
      audioMessages: this.audioMessages,
      paused: this.paused,
      pendingChars: this.pendingChars(),
      streamBuffered: this.running?.stream?.readableLength ?? 0,
    };
  }

  private pendingChars(): number {
    return this.buffer.length + this.queue.reduce((n, p) => n + p.text.length, 0) + this.runningChars;
  }

  private send(msg: string): Promise<boolean> {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return Promise.resolve(false);
    this.corkForThisTick();
    return new Promise((resolve) => this.ws.send(msg, (err) => resolve(!err)));
  }

  /**
   * Messages sent in the same turn of the event loop leave in one socket write, as Node's HTTP
   * responses do: a write per message (a syscall through the loopback TCP stack) was the largest
   * cost of the main thread with many sessions (measured: a third of its busy time). The messages
   * and their order are unchanged.
   */
  private corkForThisTick(): void {
    const socket = (this.ws as unknown as { _socket?: { cork(): void; uncork(): void; destroyed: boolean } })._socket;
    if (this.corked || !socket || socket.destroyed) return;
    this.corked = true;
    socket.cork();
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  private sendError(e: unknown): Promise<boolean> {
    const err = isSawtError(e) ? e : errors.internal('Speech synthesis failed');
    if (!isSawtError(e)) this.deps.logger.error({ err: e, ...this.logFields() }, 'ws synthesis failed');
    this.deps.metrics?.countRefusal(err.code, 'ws');
    return this.send(errorMessage(err));
  }

  /** What every log line of the session carries: its id (the request id of its pieces is `<id>:<n>`), account and key. */
  private logFields(): Record<string, unknown> {
    return { session: this.id, accountId: this.auth?.account.id ?? null, keyId: this.auth?.key.id ?? null };
  }

  private closeWith(code: number, reason: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.closing = true;
    this.ws.close(code, reason);
  }

  /** The id of the key this connection authenticated with (null: not yet). */
  get keyId(): string | null {
    return this.auth?.key.id ?? null;
  }

  /**
   * The key was revoked, deleted or expired while the connection is open (seen by
   * the plugin's key check): the error message, then close 1008, as at authentication.
   */
  keyInvalidated(e: SawtError): void {
    if (this.closed || this.closing) return;
    void this.sendError(e).then(() => this.closeWith(1008, 'API key no longer valid'));
  }

  /** Authentication failure: the error message, then close 1008. */
  private async authenticate(secret: string | undefined): Promise<boolean> {
    try {
      const auth = await this.deps.authenticator.authenticate(secret);
      this.deps.authenticator.authorize(auth, 'tts-ws');
      await this.deps.rateLimiter.hit(auth.key.id);
      if (!this.releaseKey && this.deps.claimKey) this.releaseKey = this.deps.claimKey(auth.key.id);
      if (this.closed) this.releaseKey?.();
      this.auth = auth;
      this.secret = secret;
      return true;
    } catch (e) {
      await this.sendError(e);
      this.closeWith(CLOSE.policy, isSawtError(e) && e.code === 42901 ? 'too many connections' : 'authentication failed');
      return false;
    }
  }

  private async onMessage(raw: string | null): Promise<void> {
    if (this.closed || this.closing) return;
    let msg: unknown;
    try {
      if (raw === null) throw new Error('binary');
      msg = JSON.parse(raw);
    } catch {
      await this.sendError(errors.validation('Messages must be JSON text'));
      return;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      await this.sendError(errors.validation('Messages must be JSON objects'));
      return;
    }
    const m = msg as Record<string, unknown>;
    try {
      switch (m.type) {
        case 'initConnection':
          return await this.onInit(m);
        case 'text':
          return this.onText(m);
        case 'clear':
          return this.onClear();
        case 'closeConnection':
          return this.onCloseConnection();
        default:
          throw errors.validation(`Unknown message type: ${typeof m.type === 'string' ? m.type : String(m.type)}; expected initConnection, text, clear or closeConnection`);
      }
    } catch (e) {
      await this.sendError(e);
    }
  }

  private async onInit(m: Record<string, unknown>): Promise<void> {
    if (this.settings) throw errors.validation('initConnection was already sent on this connection');
    if (!this.auth) {
      const key = typeof m.x_api_key === 'string' && m.x_api_key.trim() !== '' ? m.x_api_key.trim() : undefined;
      if (!(await this.authenticate(key))) return;
    }
    const f = validateFields(m, initFields) as { model_id?: string; voice_id: string; voice_settings?: { stability: number; speed: number }; output_format?: string };
    const auth = this.auth!;
    const model = await resolveModelFor(this.deps, auth, f.model_id ?? this.deps.models.defaultModelId());
    const voice = await this.deps.voices.get(f.voice_id, auth.account.id);
    if (!voice) throw errors.voiceNotFound(f.voice_id);
    this.settings = {
      modelId: model.model_id,
      voiceId: f.voice_id,
      stability: f.voice_settings?.stability ?? 0.5,
      speed: f.voice_settings?.speed ?? 1,
      sampleRate: Number((f.output_format ?? 'pcm_24000').slice(4)),
    };
    clearTimeout(this.initTimer);
    await this.send(JSON.stringify({ type: 'connectionInitialized' }));
  }

  private onText(m: Record<string, unknown>): void {
    if (!this.settings) throw errors.validation('Send initConnection before text');
    const f = validateFields(m, textFields) as { text?: string; flush: boolean; try_trigger_generation: boolean };
    const text = f.text ?? '';
    const pending = this.pendingChars();
    if (pending + text.length > this.limits.maxPendingChars) {
      throw errors.validation(`Too much text waiting for generation: ${pending} characters pending and ${text.length} sent; the limit is ${this.limits.maxPendingChars}. Wait for audio before sending more`);
    }
    this.buffer += text;
    this.sinceFlush += text;
    if (f.flush) {
      // The text rule applies to the whole text received since the last flush;
      // when it is too short, the unsent rest is dropped with a 40001 error.
      const whole = this.sinceFlush;
      this.sinceFlush = '';
      if (!meetsTextMinimum(whole)) {
        this.buffer = '';
        throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
      }
      if (!this.hasSpeakable(whole)) {
        // As over HTTP: text with nothing to speak is an error, not an empty final message.
        this.buffer = '';
        throw errors.validation(NOTHING_TO_SPEAK);
      }
      const rest = this.buffer;
      this.buffer = '';
      if (this.hasSpeakable(rest)) {
        this.enqueue({ text: rest, flushEnd: true, queuedAt: performance.now() });
      } else if (this.queue.length) {
        this.queue[this.queue.length - 1]!.flushEnd = true;
      } else {
        // Nothing left to generate: an empty final audio message marks the end of the flush.
        this.enqueue({ text: '', flushEnd: true, queuedAt: performance.now() });
      }
      return;
    }
    this.trigger(f.try_trigger_generation);
  }

  private hasSpeakable(s: string): boolean {
    return /[\p{L}\p{N}]/u.test(s);
  }

  /** Moves generatable text from the buffer to the queue. */
  private trigger(tryNow: boolean): void {
    let lastEnd = -1;
    for (const mt of this.buffer.matchAll(SENTENCE_END)) lastEnd = mt.index!;
    let cut = -1;
    if (lastEnd >= 0) cut = lastEnd + 1;
    else {
      const limit = LENGTH_SCHEDULE[Math.min(this.pieces, LENGTH_SCHEDULE.length - 1)]!;
      if (this.buffer.length > limit || (tryNow && this.buffer.trim().length >= TRY_TRIGGER_MIN)) cut = lastWordCut(this.buffer);
      if (cut >= 0 && tryNow && this.buffer.length <= limit && this.buffer.slice(0, cut).trim().length < TRY_TRIGGER_MIN) cut = -1;
    }
    if (cut <= 0) return;
    const piece = this.buffer.slice(0, cut);
    this.buffer = this.buffer.slice(cut);
    if (this.hasSpeakable(piece)) this.enqueue({ text: piece, flushEnd: false, queuedAt: performance.now() });
    else this.buffer = piece + this.buffer; // punctuation only: keep it with the next text
  }

  private enqueue(p: Piece): void {
    this.queue.push(p);
    if (!this.working) void this.work();
  }

  private onClear(): void {
    this.buffer = '';
    this.sinceFlush = '';
    this.queue = [];
    this.cancelRunning();
  }

  private cancelRunning(): void {
    const r = this.running;
    if (!r) return;
    r.cancelled = true;
    r.stream?.destroy();
  }

  private onCloseConnection(): void {
    this.closing = true;
    this.buffer = '';
    if (!this.working) this.closeWith(1000, 'closeConnection');
    // else: work() closes once the queue is empty.
  }

  /** Graceful shutdown of the server: finish what is queued, then close 1001. */
  shutdown(): void {
    this.closing = true;
    if (!this.working) this.closeWith(1001, 'server shutting down');
  }

  terminate(): void {
    this.queue = [];
    this.cancelRunning();
    this.ws.terminate();
  }

  private onClose(): void {
    this.closed = true;
    liveSessions.delete(this);
    clearInterval(this.timer);
    clearTimeout(this.idleTimer);
    clearTimeout(this.initTimer);
    this.releaseKey?.();
    this.releaseKey = null;
    this.queue = [];
    this.cancelRunning();
    this.chain.finally(() => this.resolveDone());
  }

  private async work(): Promise<void> {
    this.working = true;
    try {
      while (this.queue.length && !this.closed) {
        const piece = this.queue.shift()!;
        const running: Running = { stream: null, admission: null, cancelled: false };
        this.running = running;
        this.runningChars = piece.text.length;
        const job = this.runPiece(piece, running);
        await this.deps.track(job, () => {
          running.cancelled = true;
          running.stream?.destroy();
        }).catch(() => {});
        this.running = null;
        this.runningChars = 0;
      }
    } finally {
      this.working = false;
      if (this.closing && !this.closed) this.closeWith(1000, 'closeConnection');
    }
  }

  private async runPiece(piece: Piece, running: Running): Promise<void> {
    const s = this.settings!;
    if (piece.text === '') {
      await this.send(JSON.stringify({ audio: '', sampleRate: s.sampleRate, isFinal: true }));
      return;
    }
    // The key may have been revoked, have expired or been deleted since the connection opened.
    if (!(await this.stillAuthorized())) return;
    const n = ++this.pieces;
    let stream: SpeechStream;
    let admission: Admission;
    // Word timings from the stream's first chunk-info: synthesis may start before startPaidSynthesis returns.
    const align = new AlignmentBuilder(piece.text, s.sampleRate);
    try {
      ({ stream, admission } = await startPaidSynthesis(this.deps, {
        auth: this.auth!, requestId: `${this.id}:${n}`, modelId: s.modelId, voiceId: s.voiceId, text: piece.text,
        speed: s.speed, stability: s.stability, sampleRate: s.sampleRate, purpose: 'tts ws', transport: 'ws', startedAt: piece.queuedAt,
        onChunkInfo: (info) => align.add(info),
      }));
    } catch (e) {
      if (!this.closed) await this.sendError(e);
      return;
    }
    running.stream = stream;
    running.admission = admission;
    if (running.cancelled || this.closed) {
      stream.destroy();
      await admission.release('websocket piece cancelled');
      return;
    }
    let held: Buffer | null = null;
    let lastSent = Promise.resolve(true);
    const emit = (audio: Buffer, isFinal: boolean) => {
      // JSON.stringify({ audio, sampleRate, alignment?, isFinal? }) written out: base64 needs no
      // escaping, and stringify copied and scanned the ~13 kB of every message once more.
      const a = align.take();
      const json = `{"audio":"${audio.toString('base64')}","sampleRate":${s.sampleRate}${a ? `,"alignment":${JSON.stringify(a)}` : ''}${isFinal ? ',"isFinal":true' : ''}}`;
      this.sentBytes += json.length;
      this.audioMessages++;
      lastSent = this.send(json);
    };
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (running.cancelled || this.closed) throw new Error('cancelled');
        // One chunk is held back so the last audio message of a flush can carry isFinal.
        if (held) emit(held, false);
        held = chunk;
        await this.drain(running);
      }
      if (running.cancelled || this.closed) throw new Error('cancelled');
      if (held) emit(held, piece.flushEnd);
      else if (piece.flushEnd) lastSent = this.send(JSON.stringify({ audio: '', sampleRate: s.sampleRate, isFinal: true }));
      if (!(await lastSent)) throw new Error('client gone before the audio was sent');
      await admission.settle();
    } catch (e) {
      stream.destroy();
      await admission.release(running.cancelled ? 'websocket piece cancelled' : `websocket piece failed: ${(e as Error).message}`);
      if (!running.cancelled && !this.closed) await this.sendError(e);
    }
  }

  /** Checks the connection's key again; on failure: error 40101, no more audio, close 1008. */
  private async stillAuthorized(): Promise<boolean> {
    try {
      const auth = await this.deps.authenticator.authenticate(this.secret);
      this.deps.authenticator.authorize(auth, 'tts-ws');
      this.auth = auth;
      return true;
    } catch (e) {
      if (this.closed) return false;
      this.queue = [];
      this.buffer = '';
      await this.sendError(e);
      this.closeWith(CLOSE.policy, 'authentication failed');
      return false;
    }
  }

  /**
   * Backpressure: stop reading the speech stream (which pauses the native job)
   * while the socket holds more than highWaterBytes. Paused for stallTimeoutMs
   * without relief, or above maxBufferedBytes at any time: the session is closed
   * 1008 "client not reading", its queue dropped and the piece's reservation released.
   */
  private async drain(running: Running): Promise<void> {
    const { highWaterBytes, maxBufferedBytes, stallTimeoutMs } = this.limits;
    const since = Date.now();
    try {
      while (!this.closed && !running.cancelled && this.ws.bufferedAmount > highWaterBytes) {
        this.paused = true;
        if (this.ws.bufferedAmount > maxBufferedBytes || Date.now() - since > stallTimeoutMs) {
          running.cancelled = true;
          this.notReading();
          throw new Error('client not reading');
        }
        await sleep(Math.min(20, stallTimeoutMs));
      }
    } finally {
      this.paused = false;
    }
  }

  private notReading(): void {
    this.deps.logger.warn({ ...this.logFields(), bufferedAmount: this.ws.bufferedAmount }, 'ws client not reading: closing');
    this.queue = [];
    this.buffer = '';
    this.closeWith(CLOSE.policy, 'client not reading');
  }
}

/**
 * Per-character timings for the audio messages of one piece, relative to the
 * start of the piece's audio. The engine reports word timings (chunk-info
 * words: audioMs from the start of each chunk); its words are matched in order
 * to the whitespace-separated words of the piece text, and each word's
 * duration (up to the next word, or the chunk end) is spread evenly over its
 * characters. Text normalization may change the word count; extra engine words
 * are ignored, and words the engine never reported get no timings.
 */
class AlignmentBuilder {
  private readonly words: string[];
  private wordIndex = 0;
  private chunkStartMs = 0;
  private pending: Alignment = { chars: [], charStartTimesMs: [], charDurationsMs: [] };

  constructor(text: string, private readonly sampleRate: number) {
    this.words = text.trim() === '' ? [] : text.trim().split(/\s+/u);
  }

  add(info: ChunkInfo): void {
    const chunkMs = (info.samples / this.sampleRate) * 1000;
    const ws = info.words ?? [];
    for (let i = 0; i < ws.length; i++) {
      const word = this.words[this.wordIndex++];
      if (word === undefined) break;
      const start = ws[i]!.audioMs;
      const end = i + 1 < ws.length ? ws[i + 1]!.audioMs : chunkMs;
      const chars = [...word];
      const per = Math.max(0, end - start) / chars.length;
      if (this.pending.chars.length) {
        this.pending.chars.push(' ');
        this.pending.charStartTimesMs.push(Math.round(this.chunkStartMs + start));
        this.pending.charDurationsMs.push(0);
      }
      chars.forEach((c, k) => {
        this.pending.chars.push(c);
        this.pending.charStartTimesMs.push(Math.round(this.chunkStartMs + start + k * per));
        this.pending.charDurationsMs.push(Math.round(per));
      });
    }
    this.chunkStartMs += chunkMs;
  }

  take(): Alignment | null {
    if (!this.pending.chars.length) return null;
    const a = this.pending;
    this.pending = { chars: [], charStartTimesMs: [], charDurationsMs: [] };
    return a;
  }
}
