import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SawtError, definePlugin, errors, isSawtError, type FromSchema, paidSynthesisServices, tokens, writeRawHttpError, type Authenticator, type ConcurrencyLimiter, type ConcurrencySlot, type Logger } from '@sawt/core';
import { WebSocketServer } from 'ws';
import { buildAsyncApi } from './asyncapi.js';
import { DEFAULT_LIMITS, type WsLimits } from './limits.js';
import { upgradeKey } from './messages.js';
import { WsSession, liveSessions, type WsDeps } from './session.js';

export { buildAsyncApi };
export { initFields, textFields, OUTPUT_FORMATS, CLOSE, parseClientMessage, audioMessage, type Alignment } from './messages.js';
export { MessageBuffers } from './message-buffers.js';
export { TextChunker, DEFAULT_CHUNKING, NOTHING_TO_SPEAK, type TextChunkerOptions } from './text-chunker.js';
export { AlignmentBuilder } from './alignment-builder.js';
export { liveSessions, DEFAULT_LIMITS, type WsLimits };

export const WS_PATH = '/api/v1/websocket/text-to-speech';

const configSchema = {
  type: 'object',
  properties: {
    // Hard cap on one WebSocket frame/message in bytes: above it ws closes the connection 1009.
    maxPayload: { type: 'integer', minimum: 1024, default: 1 << 20 },
    maxMessageBytes: { type: 'integer', minimum: 256, default: DEFAULT_LIMITS.maxMessageBytes },
    maxPendingChars: { type: 'integer', minimum: 100, default: DEFAULT_LIMITS.maxPendingChars },
    highWaterBytes: { type: 'integer', minimum: 1024, default: DEFAULT_LIMITS.highWaterBytes },
    maxBufferedBytes: { type: 'integer', minimum: 1024, default: DEFAULT_LIMITS.maxBufferedBytes },
    stallTimeoutMs: { type: 'integer', minimum: 10, default: DEFAULT_LIMITS.stallTimeoutMs },
    pingIntervalMs: { type: 'integer', minimum: 10, default: DEFAULT_LIMITS.pingIntervalMs },
    idleTimeoutMs: { type: 'integer', minimum: 10, default: DEFAULT_LIMITS.idleTimeoutMs },
    initTimeoutMs: { type: 'integer', minimum: 10, default: DEFAULT_LIMITS.initTimeoutMs },
    // Open connections one API key may hold (0: no limit).
    maxConnectionsPerKey: { type: 'integer', minimum: 0, default: 32 },
    // Open connections from one client address (0: no limit).
    maxConnectionsPerAddress: { type: 'integer', minimum: 0, default: 64 },
    shutdownGraceMs: { type: 'integer', minimum: 0, default: 10000 },
    // How often the keys of open connections are checked against the database (revoked, deleted, expired on any node).
    keyCheckMs: { type: 'integer', minimum: 50, default: 1000 },
  },
  additionalProperties: false,
} as const;

type WsOptions = FromSchema<typeof configSchema>;

/**
 * Open connections by a name (key id, client address), capped over the whole server: the counts
 * are concurrency slots of the server's limiter (tokens.concurrency: this process alone, the
 * primary of `sawt serve --workers N` over IPC, or Redis in a cluster), under a name of their own.
 */
class ConnectionCounts {
  constructor(
    private readonly limiter: ConcurrencyLimiter,
    private readonly namespace: string,
    private readonly max: number,
    private readonly refusal: () => SawtError,
  ) {}

  /** Takes one for `name` (a SawtError when it already has `max`); the returned function gives it back once. */
  async take(name: string): Promise<() => void> {
    if (this.max === 0) return () => {};
    let slot: ConcurrencySlot;
    try {
      slot = await this.limiter.acquire(`${this.namespace}:${name}`, this.max);
    } catch (e) {
      throw isSawtError(e) && e.code === 42901 ? this.refusal() : e;
    }
    return () => void slot.release();
  }
}

const tooMany = (what: string, max: number) => new SawtError('concurrency', `Too many open WebSocket connections for this ${what}: at most ${max} at a time; close one before opening another`);

/** WSS /websocket/text-to-speech on the HTTP server of transport-http. */
export default definePlugin<WsOptions>({
  id: 'transport-ws',
  tags: ['transport'],
  scopes: [{ name: 'tts-ws', description: 'The text-to-speech WebSocket (/text-to-speech/{model_id}/stream-input)', after: 'tts' }],
  provides: [],
  consumes: [tokens.httpServer, tokens.authenticator, tokens.accounts, tokens.rateLimiter, tokens.concurrency, tokens.admission, tokens.models, tokens.voices, tokens.synthesizer, tokens.logger, tokens.metrics],
  configSchema,
  register(ctx) {
    const o = ctx.options;
    if (o.maxBufferedBytes < o.highWaterBytes) throw new Error(`transport-ws: maxBufferedBytes (${o.maxBufferedBytes}) must be at least highWaterBytes (${o.highWaterBytes})`);
    if (o.maxPayload < o.maxMessageBytes) throw new Error(`transport-ws: maxPayload (${o.maxPayload}) must be at least maxMessageBytes (${o.maxMessageBytes})`);
    const limits: WsLimits = {
      maxMessageBytes: o.maxMessageBytes, maxPendingChars: o.maxPendingChars, highWaterBytes: o.highWaterBytes, maxBufferedBytes: o.maxBufferedBytes,
      stallTimeoutMs: o.stallTimeoutMs, pingIntervalMs: o.pingIntervalMs, idleTimeoutMs: o.idleTimeoutMs, initTimeoutMs: o.initTimeoutMs,
    };
    const limiter = ctx.get(tokens.concurrency);
    const byKey = new ConnectionCounts(limiter, 'ws-key', o.maxConnectionsPerKey, () => tooMany('API key', o.maxConnectionsPerKey));
    const byAddress = new ConnectionCounts(limiter, 'ws-address', o.maxConnectionsPerAddress, () => tooMany('address', o.maxConnectionsPerAddress));
    const http = ctx.get(tokens.httpServer);
    const fastify = http.app as import('fastify').FastifyInstance;
    fastify.get('/api/v1/asyncapi.json', async (req) => buildAsyncApi(http.publicOrigin(req)));
    const deps: WsDeps = {
      authenticator: ctx.get(tokens.authenticator),
      rateLimiter: ctx.get(tokens.rateLimiter),
      ...paidSynthesisServices(ctx.get),
      logger: ctx.logger,
      track: (p, cancel) => http.trackInFlight(p, cancel),
      claimKey: (keyId) => byKey.take(keyId),
    };
    const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.options.maxPayload });
    // A handshake ws refuses (bad method, key or version) answers in the error shape of every other refusal.
    const metrics = ctx.get(tokens.metrics);
    const refuse = (socket: Duplex, e: SawtError) => {
      metrics.countRefusal(e.code, 'ws');
      writeRawHttpError(socket, e, randomUUID());
    };
    wss.on('wsClientError', (err: Error, socket: Duplex) => refuse(socket, errors.validation(`WebSocket handshake refused: ${err.message}`)));
    const sessions = new Set<WsSession>();
    metrics.addGauge({ name: 'sawt_ws_sessions_active', help: 'Open WebSocket text-to-speech sessions.', read: () => sessions.size });
    let closing = false;

    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        url = new URL('http://localhost/');
      }
      if (url.pathname !== WS_PATH || closing) {
        const e = closing ? new SawtError('unavailable', 'Server is shutting down; retry shortly') : new SawtError('notFound', 'Endpoint not found: the WebSocket endpoint is /api/v1/websocket/text-to-speech');
        refuse(socket, e);
        return;
      }
      byAddress.take(req.socket.remoteAddress ?? 'unknown').then(
        (releaseAddress) => {
          if (socket.destroyed || closing) {
            releaseAddress();
            if (!socket.destroyed) refuse(socket, new SawtError('unavailable', 'Server is shutting down; retry shortly'));
            return;
          }
          socket.once('close', releaseAddress);
          wss.handleUpgrade(req, socket, head, (ws) => {
            const session = new WsSession(ws, deps, upgradeKey(req, url), limits);
            sessions.add(session);
            void session.done.then(() => (sessions.delete(session), releaseAddress()));
          });
        },
        (e: unknown) => refuse(socket, isSawtError(e) ? e : errors.internal('Could not count the connection')),
      );
    };
    http.server.on('upgrade', onUpgrade);
    const keyCheck = watchKeys(sessions, deps.authenticator, ctx.options.keyCheckMs, ctx.logger);

    return {
      // Runs beside transport-http's stop (core stops the transports together): new connections get
      // 503 at once; open ones finish what they queued within shutdownGraceMs and close 1001, those
      // still busy then are cut and closed 1001 too; a client that does not answer the close is dropped.
      async stop() {
        closing = true;
        const graceEnds = Date.now() + ctx.options.shutdownGraceMs;
        clearInterval(keyCheck);
        for (const s of sessions) s.shutdown();
        const allDone = () => Promise.allSettled([...sessions].map((s) => s.done));
        if (sessions.size) await Promise.race([allDone(), sleep(Math.max(0, graceEnds - Date.now()), undefined, { ref: false })]);
        for (const s of sessions) s.closeNow();
        if (sessions.size) await Promise.race([allDone(), sleep(1000, undefined, { ref: false })]);
        for (const s of sessions) s.terminate();
        await allDone();
        http.server.off('upgrade', onUpgrade);
        wss.close();
      },
    };
  },
});

/**
 * Every `everyMs`, one query for the keys of all open connections: a key revoked,
 * deleted or expired since (by the CLI or any node sharing the database) closes its
 * connections 1008 with the same error a new request gets. No cache: what a
 * connection may do is at most `everyMs` old.
 */
function watchKeys(sessions: Set<WsSession>, authenticator: Authenticator, everyMs: number, logger: Logger): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running || sessions.size === 0 || !authenticator.invalidKeys) return;
    const ids = [...new Set([...sessions].map((s) => s.keyId).filter((id): id is string => id !== null))];
    if (ids.length === 0) return;
    running = true;
    authenticator.invalidKeys(ids).then(
      (invalid) => {
        for (const s of sessions) {
          const e = s.keyId === null ? undefined : invalid.get(s.keyId);
          if (e) s.keyInvalidated(e);
        }
      },
      (err) => logger.warn({ err }, 'checking the keys of open WebSocket connections failed'),
    ).finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return timer;
}
