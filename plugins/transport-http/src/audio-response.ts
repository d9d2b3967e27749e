import type { ServerResponse } from 'node:http';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors, outputFormat, streamingWavHeader, isSawtError, isDelivered, outputTooLong as outputTooLongError, turnBudget, wavHeader, whenDelivered, type CutBy, type Logger, type OutputFormatSpec, type PaidAdmission, type SawtError, type SpeechChunk, type SpeechStream, type WorkDir } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AudioEncoder } from '@sawt/native';
import { errorBody } from './errors.js';
import { setFlacTotalSamples } from './flac-length.js';
import { noteRefusal } from './request-log.js';

/** Resolves with the first chunk's audio (null at a clean end before any), rejects on a stream error or if the client left first. */
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
      const c = stream.read() as SpeechChunk | null;
      if (c !== null) {
        cleanup();
        resolve(c.pcm);
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

/** A spooled WAV up to this size is read back and sent in one write. */
const SMALL_WAV_BYTES = 1 << 20;

/** What one response may hold and where a WAV is spooled while it is generated. */
export interface OutputLimits {
  workDir: WorkDir;
  /** Longest audio one request may produce (seconds). */
  maxOutputSeconds: number;
}

export function outputTooLong(maxSeconds: number): SawtError {
  return outputTooLongError(maxSeconds);
}

/**
 * The response's body as a writable: each chunk goes on once the socket took the one before (its
 * write callback), so `handed` counts the bytes handed to the socket (what a cut response is
 * charged for). `beforeEnd` runs before res.end(): a chunked response's last bytes are its end.
 */
class ResponseSink extends Writable {
  handed = 0;
  /** Source PCM samples whose encoded bytes the socket took. */
  handedSamples = 0;

  constructor(private readonly res: ServerResponse, private readonly beforeEnd: () => Promise<void>) {
    super({ objectMode: true });
  }

  override _write(piece: Encoded | Buffer, _e: BufferEncoding, cb: (err?: Error | null) => void): void {
    const res = this.res;
    const chunk = Buffer.isBuffer(piece) ? piece : piece.data;
    const samples = Buffer.isBuffer(piece) ? 0 : piece.samples;
    if (res.destroyed) {
      cb(new ClientGone());
      return;
    }
    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      res.off('close', onClose);
      cb(err);
    };
    const onClose = () => finish(new ClientGone());
    res.once('close', onClose);
    res.write(chunk, (err) => {
      if (!err) {
        this.handed += chunk.length;
        this.handedSamples += samples;
      }
      finish(err ? new ClientGone() : null);
    });
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.beforeEnd().then(() => {
      if (this.res.destroyed) return cb(new ClientGone());
      this.res.end();
      cb();
    }, cb);
  }
}

/** Passes chunks on but the last, which goes once `before` resolved (a body with a Content-Length ends with its last bytes). */
function lastAfter(before: () => Promise<void>): Transform {
  let held: Buffer | null = null;
  return new Transform({
    transform(chunk: Buffer, _e, cb) {
      const prev = held;
      held = chunk;
      cb(null, prev ?? undefined);
    },
    flush(cb) {
      before().then(() => cb(null, held ?? undefined), cb);
    },
  });
}

/** Encoded bytes and the source samples they carry (counted when they are handed to the socket). */
interface Encoded {
  data: Buffer;
  samples: number;
}

/** The encoder of a format: PCM16 at `inRate` in, the format's bytes (a WAV's PCM without its header) out. */
export function formatEncoder(format: OutputFormatSpec, inRate: number): AudioEncoder {
  return new AudioEncoder(format.codec === 'wav' ? 'pcm' : format.codec, inRate, format.sampleRate, format.bitrate ?? 0);
}

/**
 * Encodes the PCM chunks in order (off the event loop), passing on the non-empty outputs with the
 * source samples they carry; the encoder's last bytes go at the end.
 */
function encoding(encoder: AudioEncoder, objects: boolean): Transform {
  let pending = 0;
  const out = (data: Buffer) => {
    const piece: Encoded = { data, samples: pending };
    pending = 0;
    return objects ? piece : data;
  };
  return new Transform({
    writableObjectMode: true,
    readableObjectMode: objects,
    transform(pcm: Buffer, _e, cb) {
      encoder.push(pcm).then((data) => {
        pending += pcm.length / 2;
        cb(null, data.length > 0 ? out(data) : undefined);
      }, cb);
    },
    flush(cb) {
      encoder.end().then((data) => cb(null, data.length > 0 || (objects && pending > 0) ? out(data) : undefined), cb);
    },
  });
}

/** The errors of audio cut at the output cap. */
const capErrors = new WeakSet<Error>();

/**
 * Passes the chunks' PCM on, counting it; past `maxBytes` it fails with the output limit error.
 * A chunk whose turn of the event loop has used up the delivery budget goes on in the next turn.
 */
function capped(maxBytes: number, maxSeconds: number): Transform {
  let bytes = 0;
  return new Transform({
    writableObjectMode: true,
    transform({ pcm }: SpeechChunk, _e, cb) {
      bytes += pcm.length;
      if (bytes > maxBytes) {
        const e = outputTooLong(maxSeconds);
        capErrors.add(e);
        cb(e);
        return;
      }
      const later = turnBudget.spend();
      if (later) void later.then(() => cb(null, pcm));
      else cb(null, pcm);
    },
  });
}

/**
 * Sends synthesized audio and settles the money only when the whole response
 * reached the client. The plan's concurrency slot is freed (and the limiter's
 * acknowledgement awaited) before the last bytes are written, so a request the
 * client sends once it has them is never refused for concurrency. A response cut
 * after audio went out (client reset, the output cap of a stream) is charged for
 * the characters of the audio handed to the socket (PaidAdmission.settleCut); a
 * synthesis failure releases the reservation. The PCM (at `sampleRate`) goes through the
 * format's encoder (formatEncoder: resampled and encoded off the event loop); a cut is charged
 * for the source samples whose encoded bytes were handed. Streaming sends the bytes as chunks
 * arrive (headers go with the first chunk, so an early failure is still a JSON
 * error; a WAV starts with a header of unknown length). Non-streaming spools the encoded
 * bytes to a file in the process's temp folder (memory stays bounded whatever the length) and then
 * sends them (a WAV with its header) with Content-Length. Audio past `maxOutputSeconds` is refused: non-streaming with 400
 * 40001 naming the limit; a stream already under way is cut.
 */
export async function sendSynthesis(
  req: FastifyRequest,
  reply: FastifyReply,
  run: { stream: SpeechStream; admission: PaidAdmission; streaming: boolean; sampleRate: number; format?: OutputFormatSpec },
  limits: OutputLimits,
  logger: Logger,
): Promise<void> {
  const { stream, admission, streaming, sampleRate } = run;
  // The seed's defaults: streamed raw PCM, else a WAV, at the synthesis rate.
  const format = run.format ?? outputFormat(`${streaming ? 'pcm' : 'wav'}_${sampleRate}`);
  const encoder = formatEncoder(format, sampleRate);
  /** Encoded bytes of a spooled (non-streaming) body, its header excluded. */
  let spooledBytes = 0;
  const maxBytes = Math.ceil(limits.maxOutputSeconds * sampleRate) * 2;
  const res = reply.raw;
  reply.hijack();
  res.socket?.setNoDelay(true);
  let delivered = false;
  let spool: string | null = null;
  let refused = false;
  let capHit = false;
  /** The synthesis or the server failed (not the client, not the cap): nothing is charged. */
  let failed = false;
  let clientCut = false;
  let sink: ResponseSink | null = null;
  /** Bytes of the body before the PCM (the WAV header). */
  let headerBytes = 0;
  const freeSlot = () => admission.freeSlot();
  /** Source samples of the audio handed to the socket: counted per encoded piece when streamed, in proportion to the file's bytes when spooled. */
  const handedSamples = () => {
    if (!sink) return 0;
    if (streaming) return sink.handedSamples;
    const body = Math.max(0, sink.handed - headerBytes);
    return spooledBytes > 0 ? Math.floor((Math.min(body, spooledBytes) / spooledBytes) * encoder.samplesIn) : 0;
  };
  try {
    if (streaming) {
      const first = await firstChunk(stream, res);
      if (first && first.length > maxBytes) throw outputTooLong(limits.maxOutputSeconds);
      const firstBytes = first ? await encoder.push(first) : Buffer.alloc(0);
      res.writeHead(200, {
        'content-type': format.contentType,
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': req.id,
      });
      const cap = capped(maxBytes - (first?.length ?? 0), limits.maxOutputSeconds);
      sink = new ResponseSink(res, freeSlot);
      const head = format.codec === 'wav' ? streamingWavHeader(format.sampleRate) : Buffer.alloc(0);
      const opening = Buffer.concat([head, firstBytes]);
      if (opening.length > 0) sink.write({ data: opening, samples: (first?.length ?? 0) / 2 });
      await pipeline(stream, cap, encoding(encoder, true), sink);
      delivered = await whenDelivered(res);
    } else {
      spool = limits.workDir.file('tts', '.pcm');
      const file = spool;
      const onClose = () => stream.destroy(new ClientGone());
      res.once('close', onClose);
      try {
        await pipeline(stream, capped(maxBytes, limits.maxOutputSeconds), encoding(encoder, false), createWriteStream(file));
      } finally {
        res.off('close', onClose);
      }
      if (res.destroyed) throw new ClientGone();
      // The encoder wrote the FLAC's header before its audio: the whole file states its length.
      if (format.codec === 'flac') await setFlacTotalSamples(file);
      const bytes = (await stat(file)).size;
      spooledBytes = bytes;
      const head = format.codec === 'wav' ? wavHeader(bytes, format.sampleRate) : Buffer.alloc(0);
      res.writeHead(200, {
        'content-type': format.contentType,
        'cache-control': 'no-cache',
        'content-length': head.length + bytes,
        'x-request-id': req.id,
      });
      headerBytes = head.length;
      sink = new ResponseSink(res, async () => {});
      if (bytes <= SMALL_WAV_BYTES) {
        // Small enough to send in one write (as most answers are).
        const pcm = await readFile(file);
        await rm(file, { force: true });
        spool = null;
        await freeSlot();
        await pipeline(Readable.from([Buffer.concat([head, pcm])]), sink);
      } else {
        if (head.length > 0) sink.write(head);
        // Read through an open descriptor: the file's name is gone before the first byte is sent.
        const reader = createReadStream(file);
        await once(reader, 'open');
        await rm(file, { force: true });
        spool = null;
        await pipeline(reader, lastAfter(freeSlot), sink);
      }
      delivered = await whenDelivered(res);
    }
  } catch (e) {
    stream.destroy();
    void encoder.end().catch(() => {});
    // Audio cut at the output limit was not all delivered, whatever the response's state says.
    if (isSawtError(e)) refused = true;
    // The client closing mid-body can surface as another stream's error (a premature close of the
    // spool's reader): a response the client destroyed was cut by the client, not by a failure.
    const clientGone = e instanceof ClientGone || (res.destroyed && !refused);
    // A failed write (EPIPE, reset) says so before the response is marked destroyed.
    clientCut = clientGone;
    if (e instanceof Error && capErrors.has(e)) capHit = true;
    else if (!clientGone) failed = true;
    if (!clientGone && !res.destroyed) {
      await freeSlot();
      writeJsonError(res, req, e, logger);
    } else if (refused || capHit) res.destroy();
  } finally {
    // A close racing the last write still delivered everything if end() had emptied the buffer.
    if (!refused) delivered ||= isDelivered(res);
    const cutBy: CutBy | null = capHit ? 'output cap' : failed ? null : clientCut || (res.destroyed && !res.writableFinished) ? 'client disconnected' : null;
    if (delivered) await admission.settle();
    else if (cutBy) await admission.settleCut(handedSamples(), cutBy);
    else await admission.release('synthesis failed');
    if (spool) await rm(spool, { force: true }).catch(() => {});
  }
}
