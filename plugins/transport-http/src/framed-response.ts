import type { ServerResponse } from 'node:http';
import { AlignmentBuilder, errors, isDelivered, isSawtError, outputTooLong, playedDelayMs, streamingWavHeader, wavHeader, whenDelivered, type Alignment, type CutBy, type Logger, type OutputFormatSpec, type PaidAdmission, type SawtError, type SpeechChunk, type SpeechStream } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatEncoder, type OutputLimits } from './audio-response.js';
import { errorBody } from './errors.js';
import { noteRefusal } from './request-log.js';

/** How a response frames the encoded audio and its timings (JSON, NDJSON, Server-Sent Events). */
export interface Framing {
  contentType: string;
  /** true: a piece per encoded chunk as it is generated; false: one body once the audio is whole. */
  streaming: boolean;
  /** A streamed piece: the chunk's encoded bytes (maybe empty) and the timings added with it; null: nothing to send. */
  piece(audio: Buffer, alignment: Alignment | null): string | Buffer | null;
  /** The whole body (not streaming). */
  whole(audio: Buffer, alignment: Alignment): string | Buffer;
  /** The last bytes of a stream (after its last piece). */
  end?(): string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** The body of an error sent before any audio (default: Sawt's {errorCode, errorMessage}). */
  errorBody?(e: SawtError): unknown;
}

class ClientGone extends Error {
  constructor() {
    super('client disconnected');
  }
}

/** Writes `text`; resolves once the socket took it, rejects with ClientGone if the client left. */
function write(res: ServerResponse, text: string | Buffer): Promise<void> {
  if (res.destroyed) return Promise.reject(new ClientGone());
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new ClientGone());
    res.once('close', onClose);
    res.write(text, (err) => {
      res.off('close', onClose);
      if (err) reject(new ClientGone());
      else resolve();
    });
  });
}

/**
 * Sends a paid synthesis in a text framing with per-character timings over `text` exactly as sent,
 * on the money rules of sendSynthesis (audio-response.ts): settled when the whole body reached the
 * client, a cut charged for the source samples of the pieces handed to the socket, released on a
 * synthesis failure; the concurrency slot is freed before the last bytes. The audio goes through the
 * format's encoder (formatEncoder: the native encoder, off the event loop); times are shifted by the
 * format's played delay (playedDelayMs). An error before the first byte is a JSON error
 * (framing.errorBody); after, the connection is cut. Audio past maxOutputSeconds: 400 / 40001
 * before the first byte, else a cut.
 */
export async function sendFramed(
  req: FastifyRequest,
  reply: FastifyReply,
  run: { stream: SpeechStream; admission: PaidAdmission; sampleRate: number; format: OutputFormatSpec; text: string },
  framing: Framing,
  limits: OutputLimits,
  logger: Logger,
): Promise<void> {
  const { stream, admission, sampleRate, format } = run;
  const res = reply.raw;
  reply.hijack();
  res.socket?.setNoDelay(true);
  const encoder = formatEncoder(format, sampleRate);
  const align = new AlignmentBuilder(run.text, sampleRate, { exact: true, offsetMs: playedDelayMs(format) });
  const maxBytes = Math.ceil(limits.maxOutputSeconds * sampleRate) * 2;
  const onClose = () => {
    if (!res.writableFinished) stream.destroy(new ClientGone());
  };
  res.once('close', onClose);
  let pcmBytes = 0;
  let handedSamples = 0;
  let delivered = false;
  let cutBy: CutBy | null = null;
  let headersSent = false;
  const head = () => {
    if (headersSent) return;
    headersSent = true;
    res.writeHead(200, { 'content-type': framing.contentType, 'cache-control': 'no-cache', 'x-request-id': req.id, ...framing.headers });
  };
  try {
    const parts: Buffer[] = [];
    let pendingSamples = 0;
    for await (const chunk of stream as AsyncIterable<SpeechChunk>) {
      pcmBytes += chunk.pcm.length;
      if (pcmBytes > maxBytes) {
        if (headersSent) cutBy = 'output cap';
        throw outputTooLong(limits.maxOutputSeconds);
      }
      const bytes = await encoder.push(chunk.pcm);
      align.add(chunk.info);
      pendingSamples += chunk.pcm.length / 2;
      if (!framing.streaming) {
        parts.push(bytes);
        continue;
      }
      const alignment = align.take();
      const audio = !headersSent && format.codec === 'wav' ? Buffer.concat([streamingWavHeader(format.sampleRate), bytes]) : bytes;
      const text = audio.length || alignment ? framing.piece(audio, alignment) : null;
      if (text === null) continue;
      head();
      await write(res, text);
      handedSamples += pendingSamples;
      pendingSamples = 0;
    }
    if (res.destroyed) throw new ClientGone();
    const last = await encoder.end();
    const alignment = align.finish() ?? { chars: [], charStartTimesMs: [], charDurationsMs: [] };
    if (framing.streaming) {
      const audio = !headersSent && format.codec === 'wav' ? Buffer.concat([streamingWavHeader(format.sampleRate), last]) : last;
      const text = Buffer.concat([Buffer.from(framing.piece(audio, alignment.chars.length ? alignment : null) ?? ''), Buffer.from(framing.end?.() ?? '')]);
      head();
      await admission.freeSlot();
      res.end(text);
    } else {
      parts.push(last);
      const audio = Buffer.concat(parts);
      const body = Buffer.from(framing.whole(format.codec === 'wav' ? Buffer.concat([wavHeader(audio.length, format.sampleRate), audio]) : audio, alignment));
      res.writeHead(200, { 'content-type': framing.contentType, 'cache-control': 'no-cache', 'content-length': body.length, 'x-request-id': req.id, ...framing.headers });
      headersSent = true;
      await admission.freeSlot();
      res.end(body);
    }
    delivered = await whenDelivered(res);
    if (!delivered) cutBy = 'client disconnected';
    handedSamples = encoder.samplesIn;
  } catch (e) {
    stream.destroy();
    void encoder.end().catch(() => {});
    if (e instanceof ClientGone || (res.destroyed && !isSawtError(e))) cutBy ??= 'client disconnected';
    else if (!headersSent && !res.destroyed) {
      await admission.freeSlot();
      const err = isSawtError(e) ? e : errors.internal('Speech synthesis failed');
      if (!isSawtError(e)) logger.error({ err: e, requestId: req.id, accountId: req.auth?.account.id ?? null, keyId: req.auth?.key.id ?? null }, 'synthesis failed');
      noteRefusal(res, err);
      const body = JSON.stringify(framing.errorBody ? framing.errorBody(err) : errorBody(err));
      res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': req.id, ...err.headers });
      res.end(body);
    } else {
      if (!isSawtError(e)) logger.error({ err: e, requestId: req.id }, 'synthesis failed mid-stream');
      res.destroy();
    }
  } finally {
    res.off('close', onClose);
    if (!delivered && !cutBy) delivered = isDelivered(res) && res.statusCode === 200;
    if (delivered) await admission.settle();
    else if (cutBy) await admission.settleCut(framing.streaming ? handedSamples : 0, cutBy);
    else await admission.release('synthesis failed');
  }
}
