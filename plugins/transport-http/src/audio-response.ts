import { streamingWavHeader, type Logger, type OutputFormatSpec, type PaidAdmission, type SpeechStream, type WorkDir } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodedAudio } from './encoded-audio.js';
import { sendPaid } from './paid-response.js';
import { spooledAudio } from './spooled-audio.js';

/** What one response may hold and where a whole file is spooled while it is generated. */
export interface OutputLimits {
  workDir: WorkDir;
  /** Longest audio one request may produce (seconds). */
  maxOutputSeconds: number;
}

/** Sends synthesized audio in `format` (sendPaid): streamed as generated, or spooled whole and sent with Content-Length (spooledAudio). */
export async function sendSynthesis(
  req: FastifyRequest,
  reply: FastifyReply,
  run: { stream: SpeechStream; admission: PaidAdmission; streaming: boolean; format: OutputFormatSpec },
  limits: OutputLimits,
  logger: Logger,
): Promise<void> {
  const { stream, streaming, format } = run;
  const body = streaming
    ? {
      pieces: encodedAudio(stream, format, limits, format.codec === 'wav' ? { head: streamingWavHeader(format.sampleRate) } : {}),
      headers: () => ({ 'content-type': format.contentType, 'cache-control': 'no-cache', connection: 'keep-alive' }),
    }
    : spooledAudio(stream, format, limits);
  await sendPaid(req, reply, run, body, logger);
}
