import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SawtError, definePlugin, errors, isSawtError, presentedKey, tokens, writeRawHttpError, type Authenticator, type ConcurrencyLimiter, type Logger } from '@sawt/core';
import { WebSocketServer } from 'ws';
import { buildAsyncApi } from './asyncapi.js';
import { DEFAULT_LIMITS, type WsLimits } from './limits.js';
import { WsSession, type WsDeps } from './session.js';
import { runSession } from './ws-connection.js';

// What the tests drive directly.
export { initFields, audioMessage } from './messages.js';
export { MessageBuffers } from './message-buffers.js';
export { TextChunker, NOTHING_TO_SPEAK } from './text-chunker.js';
export { SsmlChunker } from './ssml-chunker.js';
export { spokenText, splitSsml, inSessionText } from './ssml-stream-text.js';
export { AlignmentBuilder } from './alignment-builder.js';
export { WsSession, DEFAULT_LIMITS };
export { SendWindow, NotReading } from './send-window.js';

const WS_PATH = '/api/v1/websocket/text-to-speech';

const configSchema = {
  type: 'object',
  properties: {
    // Hard cap on one WebSocket message in bytes: above it ws closes the connection 1009.
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

/** Takes an open connection for a name (key id, address) as a concurrency slot over the whole server: its release, or a SawtError past `max`. */
function connectionCounts(limiter: ConcurrencyLimiter, namespace: string, max: number, what: string) {
  return async (name: string): Promise<() => void> => {
    if (max === 0) return () => {};
    const slot = await limiter.acquire(`${namespace}:${name}`, max).catch((e: unknown) => {
      throw isSawtError(e) && e.code === 42901 ? new SawtError('concurrency', `Too many open WebSocket connections for this ${what}: at most ${max} at a time; close one before opening another`) : e;
    });
    return () => void slot.release();
  };
}

/** WSS /websocket/text-to-speech on the HTTP server of transport-http. */
export default definePlugin({
  id: 'transport-ws',
  tags: ['transport'],
  scopes: [{ name: 'tts-ws', description: 'The text-to-speech WebSocket (/text-to-speech/{model_id}/stream-input)', after: 'tts' }],
  provides: [],
  deps: {
    http: tokens.httpServer, authenticator: tokens.authenticator, rateLimiter: tokens.rateLimiter, concurrency: tokens.concurrency, metrics: tokens.metrics,
    accounts: tokens.accounts, admission: tokens.admission, models: tokens.models, voices: tokens.voices, synthesizer: tokens.synthesizer,
  },
  // initConnection's pronunciation_dictionary_locators are checked against them (absent: refused).
  optionalDeps: { dictionaries: tokens.pronunciationDictionaries },
  configSchema,
  register(ctx, { http, authenticator, rateLimiter, concurrency, metrics, accounts, admission, models, voices, synthesizer, dictionaries }) {
    const o = ctx.options;
    if (o.maxBufferedBytes < o.highWaterBytes) throw new Error(`transport-ws: maxBufferedBytes (${o.maxBufferedBytes}) must be at least highWaterBytes (${o.highWaterBytes})`);
    if (o.maxPayload < o.maxMessageBytes) throw new Error(`transport-ws: maxPayload (${o.maxPayload}) must be at least maxMessageBytes (${o.maxMessageBytes})`);
    const limits = Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((k) => [k, o[k as keyof WsLimits]])) as unknown as WsLimits;
    const byKey = connectionCounts(concurrency, 'ws-key', o.maxConnectionsPerKey, 'API key');
    const byAddress = connectionCounts(concurrency, 'ws-address', o.maxConnectionsPerAddress, 'address');
    const fastify = http.app as import('fastify').FastifyInstance;
    fastify.get('/api/v1/asyncapi.json', async (req) => buildAsyncApi(http.publicOrigin(req)));
    const deps: WsDeps = {
      authenticator, rateLimiter, accounts, admission, models, voices, synthesizer, metrics,
      ...(dictionaries && { dictionaries }),
      logger: ctx.logger,
      track: (p, cancel) => http.trackInFlight(p, cancel),
      claimKey: byKey,
    };
    const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.options.maxPayload });
    // A handshake ws refuses (bad method, key or version) answers in the error shape of every other refusal.
    const refuse = (socket: Duplex, e: SawtError) => {
      metrics.countRefusal(e.code, 'ws');
      writeRawHttpError(socket, e, randomUUID());
    };
    wss.on('wsClientError', (err: Error, socket: Duplex) => refuse(socket, errors.validation(`WebSocket handshake refused: ${err.message}`)));
    const sessions = new Map<WsSession, import('ws').WebSocket>();
    metrics.addGauge({ name: 'sawt_ws_sessions_active', help: 'Open WebSocket text-to-speech sessions.', read: () => sessions.size });
    let closing = false;

    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = URL.parse(req.url ?? '/', 'http://localhost') ?? new URL('http://localhost/');
      if (url.pathname !== WS_PATH || closing) {
        const e = closing ? new SawtError('unavailable', 'Server is shutting down; retry shortly') : new SawtError('notFound', 'Endpoint not found: the WebSocket endpoint is /api/v1/websocket/text-to-speech');
        refuse(socket, e);
        return;
      }
      byAddress(req.socket.remoteAddress ?? 'unknown').then(
        (releaseAddress) => {
          if (socket.destroyed || closing) {
            releaseAddress();
            if (!socket.destroyed) refuse(socket, new SawtError('unavailable', 'Server is shutting down; retry shortly'));
            return;
          }
          socket.once('close', releaseAddress);
          wss.handleUpgrade(req, socket, head, (ws) => {
            const session = runSession(ws, socket as Socket, limits, (conn) => new WsSession(conn, deps, presentedKey(req.headers, url.searchParams.get('x-api-key')), limits));
            sessions.set(session, ws);
            void session.done.then(() => (sessions.delete(session), releaseAddress()));
          });
        },
        (e: unknown) => refuse(socket, isSawtError(e) ? e : errors.internal('Could not count the connection')),
      );
    };
    http.server.on('upgrade', onUpgrade);
    const keyCheck = watchKeys(sessions, authenticator, o.keyCheckMs, ctx.logger);

    return {
      // New connections get 503 at once; open ones finish their queue within shutdownGraceMs and close 1001,
      // those still busy then are cut and closed 1001 too; a client that does not answer the close is dropped.
      async stop() {
        closing = true;
        const graceEnds = Date.now() + ctx.options.shutdownGraceMs;
        clearInterval(keyCheck);
        for (const s of sessions.keys()) s.shutdown();
        const allDone = () => Promise.allSettled([...sessions.keys()].map((s) => s.done));
        if (sessions.size) await Promise.race([allDone(), sleep(Math.max(0, graceEnds - Date.now()), undefined, { ref: false })]);
        for (const s of sessions.keys()) s.closeNow();
        if (sessions.size) await Promise.race([allDone(), sleep(1000, undefined, { ref: false })]);
        for (const ws of sessions.values()) ws.terminate();
        await allDone();
        http.server.off('upgrade', onUpgrade);
        wss.close();
      },
    };
  },
});

/** Every `everyMs`, one query for the keys of all open connections: a key dead since (on any node) closes its connections 1008, even mid-generation. */
function watchKeys(sessions: Map<WsSession, unknown>, authenticator: Authenticator, everyMs: number, logger: Logger): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    const ids = [...new Set([...sessions.keys()].map((s) => s.keyId).filter((id): id is string => id !== null))];
    if (running || ids.length === 0 || !authenticator.invalidKeys) return;
    running = true;
    authenticator.invalidKeys(ids).then(
      (invalid) => {
        for (const s of sessions.keys()) {
          const e = s.keyId === null ? undefined : invalid.get(s.keyId);
          if (e) void s.keyInvalidated(e);
        }
      },
      (err) => logger.warn({ err }, 'checking the keys of open WebSocket connections failed'),
    ).finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return timer;
}
