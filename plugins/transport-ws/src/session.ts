import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { errors, isSawtError, resolveModelFor, resolveVoiceFor, startPaidSynthesis, type AuthContext, type SawtError } from '@sawt/core';
import { DEFAULT_LIMITS, type WsLimits } from './limits.js';
import { CLOSE, CONNECTION_INITIALIZED, errorMessage, initKey, parseClientMessage, parseInit, parseText, type InitRequest } from './messages.js';
import { messageBuffers } from './message-buffers.js';
import { PIECE_LIMITS, PieceRun, splitPiece, type Piece, type PieceOutput } from './piece.js';
import type { WsDeps, WsSessionStats } from './session-types.js';
import { ConnectionEncoder } from './encoding.js';
import { TextChunker } from './text-chunker.js';

export type { WsDeps, WsSessionStats } from './session-types.js';

/** Open sessions of this process (for diagnostics and tests). */
export const liveSessions = new Set<WsSession>();

/**
 * Where the connection is: waiting for a valid key (given at the upgrade or in initConnection),
 * waiting for initConnection, ready for text; closing (the queue is finished first after
 * closeConnection or a shutdown; otherwise the close handshake is under way); closed.
 */
type SessionState = 'connected' | 'authenticated' | 'ready' | 'closing' | 'closed';

/** What initConnection set up, the model resolved. */
type Settings = InitRequest & { modelId: string };

/**
 * One WebSocket text-to-speech connection: the I/O. Client messages are handled strictly in order
 * (a promise chain); the TextChunker cuts their text into pieces, which a queue generates one at a
 * time, so audio is sent in text order.
 */
export class WsSession {
  readonly id = randomUUID();
  private state: SessionState = 'connected';
  private auth: AuthContext | null = null;
  /** The secret the connection authenticated with: checked again before every generation. */
  private secret: string | undefined;
  private settings: Settings | null = null;
  /** The encoder of the connection's output_format (null: raw PCM at the synthesis rate). */
  private encoder: ConnectionEncoder | null = null;
  private readonly chunker = new TextChunker();
  private pieces = 0;
  private queue: Piece[] = [];
  private running: PieceRun | null = null;
  private chain: Promise<void> = Promise.resolve();
  private alive = true;
  private readonly timer: NodeJS.Timeout;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly initTimer: NodeJS.Timeout;
  private releaseKey: (() => void) | null = null;
  /** The server is shutting down: the connection closes 1001 once its queue is done. */
  private shuttingDown = false;
  /** The key stopped holding and the client was told (40101 is sent once). */
  private keyRefused = false;
  private sentBytes = 0;
  private audioMessages = 0;
  private corked = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: WsDeps,
    presented: string | undefined,
    private readonly limits: WsLimits = DEFAULT_LIMITS,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
    liveSessions.add(this);
    ws.on('message', (data, isBinary) => {
      this.idleTimer.refresh();
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      const raw = size > limits.maxMessageBytes ? undefined : isBinary ? null : data.toString();
      this.inOrder(() => (raw === undefined ? this.onOversized(size) : this.onMessage(raw)));
    });
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => this.onClose());
    ws.on('error', () => {});
    this.timer = setInterval(() => this.heartbeat(), limits.pingIntervalMs).unref();
    this.idleTimer = setTimeout(() => this.onIdle(), limits.idleTimeoutMs).unref();
    this.initTimer = setTimeout(() => this.onInitTimeout(), limits.initTimeoutMs).unref();
    if (presented !== undefined) this.inOrder(() => this.authenticate(presented).then(() => undefined));
  }

  /** Runs `step` after every message handled so far. */
  private inOrder(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((e) => this.deps.logger.error({ err: e, ...this.logFields() }, 'ws message handling failed'));
  }

  private get ending(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  private heartbeat(): void {
    if (this.state === 'closed') return;
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
  }

  /** No client message for idleTimeoutMs: close 1000, unless audio is still being generated. */
  private onIdle(): void {
    if (this.ending) return;
    if (this.running) this.idleTimer.refresh();
    else this.closeWith(CLOSE.normal, 'idle timeout');
  }

  /** No initConnection in time: the connection holds resources for nothing. */
  private onInitTimeout(): void {
    const waiting = () => this.state === 'connected' || this.state === 'authenticated';
    if (!waiting()) return;
    this.inOrder(async () => {
      if (!waiting()) return;
      await this.sendError(errors.validation(`No initConnection within ${this.limits.initTimeoutMs / 1000} s of connecting; closing`));
      this.closeWith(CLOSE.policy, 'initConnection timeout');
    });
  }

  private async onOversized(size: number): Promise<void> {
    if (this.ending) return;
    await this.sendError(errors.validation(`Message too large: ${size} bytes; the limit is ${this.limits.maxMessageBytes} bytes`));
  }

  stats(): WsSessionStats {
    return {
      id: this.id,
      state: this.ws.readyState,
      bufferedAmount: this.ws.bufferedAmount,
      sentBytes: this.sentBytes,
      audioMessages: this.audioMessages,
      paused: this.running?.paused ?? false,
      pendingChars: this.pendingChars(),
      streamBuffered: this.running?.stream?.readableLength ?? 0,
    };
  }

  private pendingChars(): number {
    return this.chunker.buffered + this.queue.reduce((n, p) => n + p.text.length, 0) + (this.running?.piece.text.length ?? 0);
  }

  /** Sends a text message; an audio message's buffer goes back to messageBuffers once written (or not sent). */
  private send(msg: string | Buffer): Promise<boolean> {
    if (this.state === 'closed' || this.ws.readyState !== this.ws.OPEN) {
      if (typeof msg !== 'string') messageBuffers.give(msg);
      return Promise.resolve(false);
    }
    this.corkForThisTick();
    if (typeof msg === 'string') return new Promise((resolve) => this.ws.send(msg, (err) => resolve(!err)));
    return new Promise((resolve) =>
      this.ws.send(msg, { binary: false }, (err) => {
        messageBuffers.give(msg);
        resolve(!err);
      }),
    );
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
    if (this.state === 'closed' || this.ws.readyState !== this.ws.OPEN) return;
    this.state = 'closing';
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
    if (this.ending || this.keyRefused) return;
    // Once: a client that is not reading would otherwise get the error again at every key check.
    this.keyRefused = true;
    this.queue = [];
    this.chunker.clear();
    // The close frame follows the error message on the socket.
    void this.sendError(e);
    this.closeWith(CLOSE.policy, 'API key no longer valid');
  }

  /** Authentication failure: the error message, then close 1008. */
  private async authenticate(secret: string | undefined): Promise<boolean> {
    try {
      const auth = await this.deps.authenticator.authenticate(secret);
      this.deps.authenticator.authorize(auth, 'tts-ws');
      await this.deps.rateLimiter.hit(auth.key.id);
      if (!this.releaseKey && this.deps.claimKey) this.releaseKey = await this.deps.claimKey(auth.key.id);
      if (this.state === 'closed') this.releaseKey?.();
      this.auth = auth;
      this.secret = secret;
      if (this.state === 'connected') this.state = 'authenticated';
      return true;
    } catch (e) {
      await this.sendError(e);
      this.closeWith(CLOSE.policy, isSawtError(e) && e.code === 42901 ? 'too many connections' : 'authentication failed');
      return false;
    }
  }

  private async onMessage(raw: string | null): Promise<void> {
    if (this.ending) return;
    try {
      const m = parseClientMessage(raw);
      switch (m.type) {
        case 'initConnection':
          return await this.onInit(m.body);
        case 'text':
          return this.onText(m.body);
        case 'clear':
          return this.onClear();
        case 'closeConnection':
          return this.onCloseConnection();
      }
    } catch (e) {
      await this.sendError(e);
    }
  }

  private async onInit(body: Record<string, unknown>): Promise<void> {
    if (this.settings) throw errors.validation('initConnection was already sent on this connection');
    if (this.state === 'connected' && !(await this.authenticate(initKey(body)))) return;
    const init = parseInit(body);
    const auth = this.auth!;
    const model = await resolveModelFor(this.deps, auth, init.modelId ?? this.deps.models.defaultModelId());
    await resolveVoiceFor(this.deps, auth, init.voiceId, model);
    this.settings = { ...init, modelId: model.model_id };
    this.encoder = ConnectionEncoder.for(init.format, init.sampleRate);
    if (this.state === 'authenticated') this.state = 'ready';
    clearTimeout(this.initTimer);
    await this.send(CONNECTION_INITIALIZED);
  }

  private onText(body: Record<string, unknown>): void {
    if (!this.settings) throw errors.validation('Send initConnection before text');
    const { text, flush, tryTrigger } = parseText(body);
    const pending = this.pendingChars();
    if (pending + text.length > this.limits.maxPendingChars) {
      throw errors.validation(`Too much text waiting for generation: ${pending} characters pending and ${text.length} sent; the limit is ${this.limits.maxPendingChars}. Wait for audio before sending more`);
    }
    this.chunker.add(text);
    const queuedAt = performance.now();
    if (!flush) {
      const piece = this.chunker.next(tryTrigger);
      if (piece !== null) this.enqueue({ text: piece, flushEnd: false, queuedAt });
      return;
    }
    // The text rule applies to the whole text received since the last flush (40001 when it fails).
    const rest = this.chunker.flush();
    if (rest !== null) this.enqueue({ text: rest, flushEnd: true, queuedAt });
    else if (this.queue.length) this.queue[this.queue.length - 1]!.flushEnd = true;
    // Nothing left to generate: an empty final audio message marks the end of the flush.
    else this.enqueue({ text: '', flushEnd: true, queuedAt });
  }

  /** Queues a piece; one longer than a request may be (PIECE_LIMITS.maxChars) goes as several, the last keeping flushEnd. */
  private enqueue(p: Piece): void {
    const split = p.text.length > PIECE_LIMITS.maxChars ? splitPiece(p.text) : [];
    const parts = split.length ? split : [p.text];
    parts.forEach((text, i) => this.queue.push({ ...p, text, flushEnd: p.flushEnd && i === parts.length - 1 }));
    if (!this.running) void this.work();
  }

  private onClear(): void {
    this.chunker.clear();
    this.queue = [];
    this.running?.cancel('client clear');
  }

  private onCloseConnection(): void {
    this.state = 'closing';
    this.chunker.clear();
    if (!this.running) this.closeWith(CLOSE.normal, 'closeConnection');
    // else: work() closes once the queue is empty.
  }

  /** Graceful shutdown of the server: finish what is queued, then close 1001. */
  shutdown(): void {
    this.shuttingDown = true;
    if (this.state !== 'closed') this.state = 'closing';
    if (!this.running) this.closeWith(CLOSE.shutdown, 'server shutting down');
  }

  /** The shutdown's grace is over: what is queued or running is dropped and the connection closes 1001. */
  closeNow(): void {
    this.shuttingDown = true;
    this.queue = [];
    this.running?.cancel();
    this.closeWith(CLOSE.shutdown, 'server shutting down');
  }

  terminate(): void {
    this.queue = [];
    this.running?.cancel();
    this.ws.terminate();
  }

  private onClose(): void {
    this.state = 'closed';
    liveSessions.delete(this);
    clearInterval(this.timer);
    clearTimeout(this.idleTimer);
    clearTimeout(this.initTimer);
    this.releaseKey?.();
    this.releaseKey = null;
    this.queue = [];
    this.running?.cancel('client disconnected');
    void this.chain.finally(() => this.resolveDone());
  }

  private async work(): Promise<void> {
    while (this.queue.length && this.state !== 'closed') {
      const run = new PieceRun(this.queue.shift()!, this.output, this.limits);
      this.running = run;
      await this.deps.track(this.runPiece(run), () => run.cancel()).catch(() => {});
      this.running = null;
    }
    if (this.state === 'closing') this.closeWith(this.shuttingDown ? CLOSE.shutdown : CLOSE.normal, this.shuttingDown ? 'server shutting down' : 'closeConnection');
  }

  private async runPiece(run: PieceRun): Promise<void> {
    const s = this.settings!;
    if (run.piece.text === '') return run.sendEmptyFinal(s.sampleRate, this.encoder);
    // The key may have been revoked, have expired or been deleted since the connection opened. It is
    // checked while the piece's admission and synthesis start, not before them (a database round
    // trip less before the first audio); a key that no longer holds wins: its error alone is sent,
    // the admission is released and no audio goes out.
    const authorized = this.stillAuthorized();
    const requestId = `${this.id}:${++this.pieces}`;
    const refused = () => {
      run.cancel();
      return new Error('the key no longer holds');
    };
    await run.run(async () => {
      let started: Awaited<ReturnType<typeof startPaidSynthesis>>;
      try {
        started = await startPaidSynthesis(this.deps, {
          auth: this.auth!, requestId, modelId: s.modelId, voiceId: s.voiceId, text: run.piece.text,
          speed: s.speed, stability: s.stability, sampleRate: s.sampleRate, purpose: 'tts ws', transport: 'ws', startedAt: run.piece.queuedAt,
          maxOutputSeconds: PIECE_LIMITS.maxOutputSeconds,
        });
      } catch (e) {
        throw (await authorized) ? e : refused();
      }
      if (!(await authorized)) {
        started.stream.destroy();
        await started.admission.release('websocket key no longer valid');
        throw refused();
      }
      return started;
    }, s.sampleRate, this.encoder);
  }

  /** Checks the connection's key again; on failure: error 40101, no more audio, close 1008. */
  private async stillAuthorized(): Promise<boolean> {
    try {
      const auth = await this.deps.authenticator.authenticate(this.secret);
      this.deps.authenticator.authorize(auth, 'tts-ws');
      this.auth = auth;
      return true;
    } catch (e) {
      if (this.state === 'closed' || this.keyRefused) return false;
      this.keyRefused = true;
      this.queue = [];
      this.chunker.clear();
      await this.sendError(e);
      this.closeWith(CLOSE.policy, 'authentication failed');
      return false;
    }
  }

  /** The connection as a piece's generation sees it. */
  private readonly output: PieceOutput = {
    send: (msg) => this.send(msg),
    sendAudio: (msg) => {
      this.sentBytes += msg.length;
      this.audioMessages++;
      return this.send(msg);
    },
    sendError: (e) => this.sendError(e),
    bufferedAmount: () => this.ws.bufferedAmount,
    closed: () => this.state === 'closed',
    notReading: () => this.notReading(),
  };

  private notReading(): void {
    this.deps.logger.warn({ ...this.logFields(), bufferedAmount: this.ws.bufferedAmount }, 'ws client not reading: closing');
    this.queue = [];
    this.chunker.clear();
    this.closeWith(CLOSE.policy, 'client not reading');
  }
}
