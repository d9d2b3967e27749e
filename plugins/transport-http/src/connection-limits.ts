/** Limits on what one client may hold of the HTTP server: the pace of a request body, and the connections of one address. */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { SawtError, isSawtError, writeRawHttpError, type ConcurrencyLimiter, type ConcurrencySlot, type Logger } from '@sawt/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface MinBodyRate {
  /** Average bytes per second a request body must keep up (0: no minimum). */
  bytesPerSecond: number;
  /** The average is first judged this long after the request's headers arrived. */
  graceMs: number;
}

const slowBody = (rate: MinBodyRate) =>
  new SawtError('requestTimeout', `The request body arrived too slowly: under ${rate.bytesPerSecond} bytes per second on average after the first ${rate.graceMs / 1000} s`);

const CHECK_EVERY_MS = 500;

/** A body slower than `rate` on average after the grace is answered 408 (40801) and closed; time the server was not reading does not count. */
export function enforceMinBodyRate(app: FastifyInstance, rate: MinBodyRate, onCut: (req: FastifyRequest, e: SawtError) => void): void {
  if (rate.bytesPerSecond <= 0) return;
  app.addHook('onRequest', async (req) => {
    const raw = req.raw;
    const hasBody = Number(raw.headers['content-length'] ?? 0) > 0 || raw.headers['transfer-encoding'] !== undefined;
    if (!hasBody || raw.complete) return;
    const socket = raw.socket;
    const startBytes = socket.bytesRead;
    let clientMs = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      // The server is behind (unread body buffered): the client is not the slow side.
      if (raw.readableLength === 0) clientMs += now - last;
      last = now;
      if (raw.complete || socket.destroyed) return clearInterval(timer);
      if (clientMs < rate.graceMs) return;
      const received = socket.bytesRead - startBytes;
      if (received / (clientMs / 1000) >= rate.bytesPerSecond) return;
      clearInterval(timer);
      const e = slowBody(rate);
      onCut(req, e);
      const res = raw.socket && (raw.socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (res?.headersSent) socket.destroy();
      else writeRawHttpError(socket, e, req.id);
      raw.destroy();
    }, CHECK_EVERY_MS);
    timer.unref();
    raw.once('end', () => clearInterval(timer));
    raw.once('close', () => clearInterval(timer));
  });
}

const tooManyConnections = (max: number) =>
  new SawtError('concurrency', `Too many open HTTP connections from this address: at most ${max} at a time; close one before opening another`);

/**
 * At most `max` open HTTP connections per client address over the whole server (over it: 429, closed).
 * Behind a trusted proxy (`perRequest`) each request in flight counts for its forwarded address (req.ip).
 */
export function capConnectionsPerAddress(app: FastifyInstance, server: Server, opts: { max: number; perRequest: boolean }, limiter: ConcurrencyLimiter, logger: Logger): () => void {
  if (opts.max <= 0) return () => {};
  const take = async (address: string): Promise<ConcurrencySlot> => {
    try {
      return await limiter.acquire(`http-address:${address}`, opts.max);
    } catch (e) {
      throw isSawtError(e) && e.code === 42901 ? tooManyConnections(opts.max) : e;
    }
  };
  if (opts.perRequest) {
    app.addHook('onRequest', async (req, reply) => {
      const slot = await take(req.ip ?? 'unknown');
      reply.raw.once('close', () => void slot.release());
    });
    return () => {};
  }
  // The count of each connection, taken at accept; its first request waits for it (one round trip to the primary or Redis).
  const counted = new WeakMap<Socket, Promise<SawtError | null>>();
  app.addHook('onRequest', async (req, reply) => {
    const e = await counted.get(req.raw.socket);
    if (e) {
      reply.header('connection', 'close');
      throw e;
    }
  });
  const onConnection = (socket: Socket) => {
    const outcome = take(socket.remoteAddress ?? 'unknown').then(
      (slot) => {
        if (socket.destroyed) void slot.release();
        else socket.once('close', () => void slot.release());
        return null;
      },
      (e: unknown) => {
        if (!isSawtError(e)) {
          logger.warn({ err: e }, 'counting an HTTP connection failed; it is let through');
          return null;
        }
        // An idle connection is refused now; one whose request is under way is answered by onRequest.
        if (!socket.destroyed && !(socket as { _httpMessage?: unknown })._httpMessage) writeRawHttpError(socket, e, randomUUID());
        return e;
      },
    );
    counted.set(socket, outcome);
  };
  server.on('connection', onConnection);
  return () => server.off('connection', onConnection);
}
