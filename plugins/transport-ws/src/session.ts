import { randomUUID } from 'node:crypto';
import { errors, isSawtError, resolveModelFor, resolveVoiceFor, startPaidSynthesis, type AuthContext, type Authenticator, type DictionaryLocator, type Logger, type PaidSynthesisServices, type PronunciationDictionaries, type RateLimiter } from '@sawt/core';
import { ConnectionEncoder } from './encoding.js';
import { DEFAULT_LIMITS, type WsLimits } from './limits.js';
import { CLOSE, CONNECTION_INITIALIZED, errorMessage, initKey, parseClientMessage, parseInit, parseText, type InitRequest } from './messages.js';
import { messageBuffers } from './message-buffers.js';
import { PIECE_LIMITS, PieceRun, splitPiece, type Piece, type PieceOutput } from './piece.js';
import { SsmlChunker } from './ssml-chunker.js';
import { inSessionText, splitSsml, type SsmlPiece } from './ssml-stream-text.js';
import { TextChunker, type Chunker } from './text-chunker.js';

/** What a WebSocket session uses of the server. */
export interface WsDeps extends PaidSynthesisServices {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  track: <T>(p: Promise<T>, cancel: () => void) => Promise<T>;
  /** Counts an open connection for the key over the whole server; rejects with a SawtError when the key has too many (released by the returned function). */
  claimKey?: (keyId: string) => Promise<() => void>;
  /** Starts a piece's paid synthesis (default: startPaidSynthesis with these services). */
  startSynthesis?: typeof startPaidSynthesis;
  /** The accounts' pronunciation dictionaries: initConnection's locators are checked against them (absent: none is accepted). */
  dictionaries?: PronunciationDictionaries;
}

/** The connection a session speaks on (the ws adapter, ws-connection.ts, or a test's fake). */
export interface WsConnection {
  /** Sends a message; resolves true once the socket took it, false when it could not be sent. */
  send(msg: string | Buffer): Promise<boolean>;
  /** Resolves once the client has read enough of what was sent; rejects with NotReading when it stopped reading. */
  drained(): Promise<void>;
  /** Starts the close handshake (nothing once closing). */
  close(code: number, reason: string): void;
}

/** Where the connection is; closing: the queue is finished first after closeConnection or a shutdown, else the close handshake is under way. */
type SessionState = 'connected' | 'authenticated' | 'ready' | 'closing' | 'closed';

/**
 * The WebSocket text-to-speech protocol of one connection, without the socket: messages handled strictly
 * in order, their text cut into pieces generated one at a time, so audio goes in text order.
 */
export class WsSession {
  readonly id = randomUUID();
  private state: SessionState = 'connected';
  private auth: AuthContext | null = null;
  private settings: (InitRequest & { modelId: string }) | null = null;
  /** The encoder of the connection's output_format (null: raw PCM at the synthesis rate). */
  private encoder: ConnectionEncoder | null = null;
  /** Plain text, or an SSML stream once initConnection says text_type "ssml". */
  private chunker: Chunker = new TextChunker();
  /** Where each SSML piece came from in the session's text (its errors name places there). */
  private readonly ssmlPieces = new WeakMap<Piece, SsmlPiece>();
  private pieces = 0;
  private queue: Piece[] = [];
  private running: PieceRun | null = null;
  private chain: Promise<void> = Promise.resolve();
  private releaseKey: (() => void) | null = null;
  /** The server is shutting down: the connection closes 1001 once its queue is done. */
  private shuttingDown = false;
  /** 40101 was sent (once). */
  private keyRefused = false;
  private closeSent = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly conn: WsConnection,
    private readonly deps: WsDeps,
    presented: string | undefined,
    private readonly limits: WsLimits = DEFAULT_LIMITS,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
    if (presented !== undefined) this.inOrder(() => this.authenticate(presented).then(() => undefined));
  }

  /** A client message: its text (null: binary), or its size when it was over maxMessageBytes. */
  receive(raw: string | null | { oversized: number }): void {
    this.inOrder(() => (raw !== null && typeof raw === 'object' ? this.onOversized(raw.oversized) : this.onMessage(raw)));
  }

  /** Runs `step` after every message handled so far. */
  private inOrder(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((e) => this.deps.logger.error({ err: e, ...this.logFields() }, 'ws message handling failed'));
  }

  private get ending(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  /** No client message for idleTimeoutMs: close 1000, unless audio is still being generated (false: still busy). */
  idle(): boolean {
    if (this.ending) return true;
    if (this.running) return false;
    this.closeWith(CLOSE.normal, 'idle timeout');
    return true;
  }

  /** No initConnection in time: the connection holds resources for nothing. */
  initTimedOut(): void {
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

  private pendingChars(): number {
    return this.chunker.buffered + this.queue.reduce((n, p) => n + p.text.length, 0) + (this.running?.piece.text.length ?? 0);
  }

  private send(msg: string | Buffer): Promise<boolean> {
    if (this.state === 'closed') {
      if (typeof msg !== 'string') messageBuffers.give(msg);
      return Promise.resolve(false);
    }
    return this.conn.send(msg);
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
    if (this.state === 'closed' || this.closeSent) return;
    this.closeSent = true;
    this.state = 'closing';
    this.conn.close(code, reason);
  }

  /** Drops the text waiting for generation. */
  private drop(): void {
    this.queue = [];
    this.chunker.clear();
  }

  /** The client is refused from now on: what is waiting is dropped, the error goes, then close 1008. */
  private refuse(e: unknown, reason: string): Promise<boolean> {
    this.drop();
    const sent = this.sendError(e);
    this.closeWith(CLOSE.policy, reason);
    return sent;
  }

  private async authenticate(secret: string | undefined): Promise<boolean> {
    try {
      const auth = await this.deps.authenticator.authenticate(secret);
      this.deps.authenticator.authorize(auth, 'tts-ws');
      await this.deps.rateLimiter.hit(auth.key.id);
      if (!this.releaseKey && this.deps.claimKey) this.releaseKey = await this.deps.claimKey(auth.key.id);
      if (this.state === 'closed') this.releaseKey?.();
      this.auth = auth;
      if (this.state === 'connected') this.state = 'authenticated';
      return true;
    } catch (e) {
      await this.refuse(e, isSawtError(e) && e.code === 42901 ? 'too many connections' : 'authentication failed');
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
    const dictionaryLocators = init.dictionaryLocators && (await this.pinDictionaries(auth.account.id, init.dictionaryLocators));
    this.settings = { ...init, modelId: model.model_id, dictionaryLocators };
    if (init.textType === 'ssml') this.chunker = new SsmlChunker();
    this.encoder = ConnectionEncoder.for(init.format, init.sampleRate);
    if (this.state === 'authenticated') this.state = 'ready';
    await this.send(CONNECTION_INITIALIZED);
  }

  /** The session's dictionaries checked now (40401 before any text), each pinned at its version now for the whole session. */
  private async pinDictionaries(accountId: string, locators: DictionaryLocator[]): Promise<DictionaryLocator[]> {
    const dictionaries = this.deps.dictionaries;
    if (!dictionaries) throw errors.validation('pronunciation_dictionary_locators are not supported by this server (no dictionaries plugin)');
    if (!dictionaries.resolveVersions) {
      await dictionaries.resolveLocators(accountId, locators);
      return locators;
    }
    const versions = await dictionaries.resolveVersions(accountId, locators);
    return locators.map((l, i) => ({ ...l, version_id: versions[i]!.versionId }));
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

  /** Queues a piece; one over PIECE_LIMITS.maxChars goes as several (SSML: whole documents), the last keeping flushEnd. */
  private enqueue(p: Piece): void {
    const ssml = p.text !== '' && this.chunker instanceof SsmlChunker ? this.chunker.lastPiece : null;
    const long = p.text.length > PIECE_LIMITS.maxChars;
    const split = long ? (ssml ? splitSsml(p.text, PIECE_LIMITS.maxChars) : splitPiece(p.text)) : [];
    const parts = split.length ? split : [p.text];
    parts.forEach((text, i) => {
      const piece: Piece = { ...p, text, flushEnd: p.flushEnd && i === parts.length - 1, ...(ssml && { ssml: true }) };
      // The first part starts as the whole did; the places in a later part are its own (its errors name them so).
      if (ssml && i === 0) this.ssmlPieces.set(piece, ssml);
      this.queue.push(piece);
    });
    if (!this.running) void this.work();
  }

  private onClear(): void {
    this.drop();
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

  /** The socket closed: what is queued is dropped, what runs is cut ('client disconnected' unless cut already). */
  closed(): void {
    this.state = 'closed';
    this.releaseKey?.();
    this.releaseKey = null;
    this.queue = [];
    this.running?.cancel('client disconnected');
    void this.chain.finally(() => this.resolveDone());
  }

  private async work(): Promise<void> {
    while (this.queue.length && this.state !== 'closed') {
      const run = new PieceRun(this.queue.shift()!, this.output);
      this.running = run;
      await this.deps.track(this.runPiece(run), () => run.cancel()).catch(() => {});
      this.running = null;
    }
    if (this.state === 'closing') this.closeWith(this.shuttingDown ? CLOSE.shutdown : CLOSE.normal, this.shuttingDown ? 'server shutting down' : 'closeConnection');
  }

  private async runPiece(run: PieceRun): Promise<void> {
    const s = this.settings!;
    if (run.piece.text === '') return run.sendEmptyFinal(s.sampleRate, this.encoder);
    // The key's liveness is checked while the synthesis starts (a database round trip less before the first audio); a dead key wins.
    const live = this.keyStillLive();
    const requestId = `${this.id}:${++this.pieces}`;
    const refused = () => {
      run.cancel();
      return new Error('the key no longer holds');
    };
    const start = this.deps.startSynthesis ?? startPaidSynthesis;
    await run.run(async () => {
      const started = await start(this.deps, {
        auth: this.auth!, requestId, modelId: s.modelId, voiceId: s.voiceId, text: run.piece.text,
        speed: s.speed, stability: s.stability, sampleRate: s.sampleRate, purpose: 'tts ws', transport: 'ws', startedAt: run.piece.queuedAt,
        maxOutputSeconds: PIECE_LIMITS.maxOutputSeconds,
        ...(s.textType && { textType: s.textType }), ...(s.dictionaryLocators && { dictionaryLocators: s.dictionaryLocators }),
      }).catch(async (e: unknown) => {
        if (!(await live)) throw refused();
        const ssml = this.ssmlPieces.get(run.piece);
        throw ssml ? inSessionText(e, ssml) : e;
      });
      if (!(await live)) {
        started.stream.destroy();
        await started.admission.release('websocket key no longer valid');
        throw refused();
      }
      return started;
    }, s.sampleRate, this.encoder);
  }

  /** Whether the connection's key still holds; if not: error 40101 (once), no more audio, close 1008. */
  private async keyStillLive(): Promise<boolean> {
    const keyId = this.auth!.key.id;
    const invalid = await this.deps.authenticator.invalidKeys?.([keyId]).then(
      (found) => found.get(keyId),
      (e: unknown) => void this.deps.logger.warn({ err: e, ...this.logFields() }, 'checking the key of a WebSocket connection failed'),
    );
    if (!invalid) return !this.keyRefused;
    await this.keyInvalidated(invalid);
    return false;
  }

  /** The id of the key this connection authenticated with (null: not yet). */
  get keyId(): string | null {
    return this.auth?.key.id ?? null;
  }

  /** The key no longer holds (seen before a generation or by the plugin's periodic check): 40101 once, no more audio, close 1008. */
  async keyInvalidated(e: unknown): Promise<void> {
    if (this.state === 'closed' || this.keyRefused) return;
    this.keyRefused = true;
    await this.refuse(e, 'API key no longer valid');
  }

  /** The connection as a piece's generation sees it. */
  private readonly output: PieceOutput = {
    send: (msg) => this.send(msg),
    sendError: (e) => this.sendError(e),
    drained: () => this.conn.drained(),
    closed: () => this.state === 'closed',
    notReading: () => {
      this.deps.logger.warn(this.logFields(), 'ws client not reading: closing');
      this.drop();
      this.closeWith(CLOSE.policy, 'client not reading');
    },
  };
}
