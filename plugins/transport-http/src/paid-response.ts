import { Readable } from 'node:stream';
import { errors, isSawtError, whenDelivered, type CutBy, type Logger, type PaidAdmission, type SpeechStream } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Bytes of a response body and the source samples whose audio they carry (what a cut is charged for). */
export interface BodyPiece {
  data: Buffer;
  samples: number;
  /** The body's last bytes (a body with a Content-Length): the concurrency slot is freed before them. */
  last?: boolean;
}

/** A paid synthesis as a response body: its pieces in order, and the headers known once the first is. */
export interface PaidBody {
  pieces: AsyncIterable<BodyPiece>;
  headers(): Record<string, string | number>;
}

/** Audio cut at the output cap: the error a body's pieces throw. */
export class OutputCapped extends Error {
  constructor(readonly refusal: ReturnType<typeof errors.validation>) {
    super(refusal.message);
  }
}

/**
 * Sends a paid synthesis and settles its money once the response ended: whole, settled; cut by the
 * client or the output cap, charged for the samples handed to the response; failed, released. The
 * first piece is awaited before the headers go, so a failure before any audio is a JSON error. The
 * plan's slot is freed before the last byte: the client's next request is not refused for concurrency.
 */
export async function sendPaid(req: FastifyRequest, reply: FastifyReply, run: { stream: SpeechStream; admission: PaidAdmission }, body: PaidBody, logger: Logger): Promise<void> {
  const { stream, admission } = run;
  const res = reply.raw;
  // The client left: the synthesis stops at once (fastify also destroys the body it pipes).
  const onClose = () => {
    if (!res.writableFinished) stream.destroy();
  };
  res.once('close', onClose);
  let handed = 0;
  /** Why the body ended early, when it was not the client. */
  let endedBy: 'output cap' | 'failure' | null = null;
  const failed = (e: unknown) => {
    if (e instanceof OutputCapped) endedBy ??= 'output cap';
    else if (!res.destroyed) endedBy ??= 'failure';
  };
  const pieces = body.pieces[Symbol.asyncIterator]();
  let delivered = false;
  try {
    let first: IteratorResult<BodyPiece>;
    try {
      first = await pieces.next();
    } catch (e) {
      failed(e);
      if (res.destroyed) return;
      if (e instanceof OutputCapped) throw e.refusal;
      if (isSawtError(e)) throw e;
      logger.error({ err: e, requestId: req.id, accountId: req.auth?.account.id ?? null, keyId: req.auth?.key.id ?? null }, 'synthesis failed');
      throw errors.internal('Speech synthesis failed');
    }
    const samples: number[] = [];
    // A chunked body's last byte is its end, after every piece.
    async function* slotFreedBeforeLastByte(): AsyncGenerator<Buffer> {
      try {
        for (let p = first; !p.done; p = await pieces.next()) {
          if (p.value.last) await admission.freeSlot();
          samples.push(p.value.samples);
          yield p.value.data;
          if (p.value.last) return;
        }
      } catch (e) {
        failed(e);
        if (endedBy === 'failure') logger.error({ err: e, requestId: req.id }, 'synthesis failed mid-stream');
        throw e;
      }
      await admission.freeSlot();
    }
    // Paused until fastify pipes it: counting its 'data' (a piece written to the response) must not start the flow.
    const out = Readable.from(slotFreedBeforeLastByte()).pause();
    out.on('data', () => (handed += samples.shift() ?? 0));
    // The synthesis cancelled (shutdown) while the body waits on a client that does not read: the response is cut now.
    stream.once('close', () => {
      if (stream.readableEnded || res.writableFinished || endedBy) return;
      failed(new Error('synthesis cancelled'));
      out.destroy(new Error('synthesis cancelled'));
    });
    void reply.code(200).headers(body.headers()).send(out);
    delivered = await whenDelivered(res);
  } finally {
    res.off('close', onClose);
    stream.destroy();
    if (delivered) await admission.settle();
    else {
      const cutBy: CutBy | 'failure' = endedBy ?? (res.destroyed ? 'client disconnected' : 'failure');
      await (cutBy === 'failure' ? admission.release('synthesis failed') : admission.settleCut(handed, cutBy));
    }
    // What the pieces hold (a spool file, an encoder) goes once the money is settled.
    await pieces.return?.(undefined).catch(() => {});
  }
}
