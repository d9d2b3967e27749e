import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { PCM_CONTENT_TYPE, encodeWav, errors, isSawtError, isDelivered, whenDelivered, type Admission, type Logger, type SpeechStream } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './errors.js';
import { noteRefusal } from './request-log.js';

/** Resolves with the first buffered chunk (null at a clean end before any), rejects on a stream error or if the client left first. */
function firstChunk(stream: SpeechStream, res: ServerResponse): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    if (res.destroyed) {
      stream.destroy();
      reject(new ClientGone());
      return;
    }
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      res.off('close', onClose);
    };
    const onReadable = () => {
      const c = stream.read() as Buffer | null;
      if (c !== null) {
        cleanup();
        resolve(c);
      }
    };
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (e: Error) => (cleanup(), reject(e));
    const onClose = () => (cleanup(), stream.destroy(), reject(new ClientGone()));
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
    res.once('close', onClose);
  });
}

class ClientGone extends Error {
  constructor() {
    super('client disconnected');
  }
}

function writeJsonError(res: ServerResponse, req: FastifyRequest, e: unknown, logger: Logger): void {
  const requestId = req.id;
  const err = isSawtError(e) ? e : errors.internal('Speech synthesis failed');
  if (!isSawtError(e)) logger.error({ err: e, requestId, accountId: req.auth?.account.id ?? null, keyId: req.auth?.key.id ?? null }, 'synthesis failed');
  noteRefusal(res, err);
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(err));
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId, ...err.headers });
  res.end(body);
}

/**
 * Sends synthesized audio and settles the money only when the whole response
 * reached the client; a synthesis failure, a client disconnect or a write error
 * releases the reservation instead. Streaming sends raw PCM16 as chunks arrive
 * (headers go with the first chunk, so an early failure is still a JSON error);
 * non-streaming collects the audio and sends a WAV with Content-Length.
 */
export async function sendSynthesis(
  req: FastifyRequest,
  reply: FastifyReply,
  run: { stream: SpeechStream; admission: Admission; streaming: boolean; sampleRate: number },
  logger: Logger,
): Promise<void> {
  const { stream, admission, streaming, sampleRate } = run;
  const res = reply.raw;
  reply.hijack();
  res.socket?.setNoDelay(true);
  let delivered = false;
  try {
    if (streaming) {
      const first = await firstChunk(stream, res);
      res.writeHead(200, {
        'content-type': PCM_CONTENT_TYPE(sampleRate),
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': req.id,
      });
      if (first) res.write(first);
      await pipeline(stream, res);
      delivered = await whenDelivered(res);
    } else {
      const chunks: Buffer[] = [];
      const onClose = () => stream.destroy(new ClientGone());
      res.once('close', onClose);
      try {
        for await (const c of stream) chunks.push(c as Buffer);
      } finally {
        res.off('close', onClose);
      }
      if (res.destroyed) throw new ClientGone();
      const wav = encodeWav(chunks, sampleRate);
      res.writeHead(200, {
        'content-type': 'audio/wav',
        'cache-control': 'no-cache',
        'content-length': wav.length,
        'x-request-id': req.id,
      });
      res.end(wav);
      delivered = await whenDelivered(res);
    }
  } catch (e) {
    stream.destroy();
    if (!(e instanceof ClientGone) && !res.destroyed) writeJsonError(res, req, e, logger);
  } finally {
    // A close racing the last write still delivered everything if end() had emptied the buffer.
    delivered ||= isDelivered(res);
    if (delivered) await admission.settle();
    else await admission.release(res.destroyed && !res.writableFinished ? 'client disconnected' : 'synthesis failed');
  }
}
