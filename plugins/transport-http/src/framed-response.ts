import { AlignmentBuilder, playedDelayMs, streamingWavHeader, wavHeader, type Alignment, type Logger, type OutputFormatSpec, type PaidAdmission, type SpeechChunk, type SpeechStream } from '@sawt/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutputLimits } from './audio-response.js';
import { encodedAudio } from './encoded-audio.js';
import { sendPaid, type BodyPiece } from './paid-response.js';

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
  /** Sees each chunk of speech as it is read for encoding, before the piece that carries its audio. */
  onChunk?(chunk: SpeechChunk): void;
}

/** Sends a paid synthesis (sendPaid) in a text framing with per-character timings over `text` exactly as sent, shifted by the format's played delay. */
export async function sendFramed(
  req: FastifyRequest,
  reply: FastifyReply,
  run: { stream: SpeechStream; admission: PaidAdmission; format: OutputFormatSpec; text: string },
  framing: Framing,
  limits: OutputLimits,
  logger: Logger,
): Promise<void> {
  const { format } = run;
  // Timed at the speech's own rate, known from its first chunk.
  let align: AlignmentBuilder | null = null;
  const audio = encodedAudio(run.stream, format, limits, {
    head: framing.streaming && format.codec === 'wav' ? streamingWavHeader(format.sampleRate) : undefined,
    onChunk: (chunk) => {
      (align ??= new AlignmentBuilder(run.text, chunk.sampleRate, { exact: true, offsetMs: playedDelayMs(format) })).add(chunk.info);
      framing.onChunk?.(chunk);
    },
  });
  let length: number | null = null;
  async function* streamed(): AsyncGenerator<BodyPiece> {
    let samples = 0;
    for await (const p of audio) {
      samples += p.samples;
      const alignment = (p.last ? align?.finish() : align?.take()) ?? null;
      const text = p.last
        ? Buffer.concat([Buffer.from(framing.piece(p.data, alignment?.chars.length ? alignment : null) ?? ''), Buffer.from(framing.end?.() ?? '')])
        : p.data.length || alignment ? framing.piece(p.data, alignment) : null;
      if (text === null) continue;
      yield { data: Buffer.from(text), samples, last: p.last };
      samples = 0;
    }
  }
  async function* whole(): AsyncGenerator<BodyPiece> {
    const parts: Buffer[] = [];
    let samples = 0;
    for await (const p of audio) {
      parts.push(p.data);
      samples += p.samples;
    }
    const bytes = Buffer.concat(parts);
    const file = format.codec === 'wav' ? Buffer.concat([wavHeader(bytes.length, format.sampleRate), bytes]) : bytes;
    const data = Buffer.from(framing.whole(file, align?.finish() ?? { chars: [], charStartTimesMs: [], charDurationsMs: [] }));
    length = data.length;
    yield { data, samples, last: true };
  }
  const headers = () => ({ 'content-type': framing.contentType, 'cache-control': 'no-cache', ...framing.headers, ...(length === null ? {} : { 'content-length': length }) });
  await sendPaid(req, reply, run, { pieces: framing.streaming ? streamed() : whole(), headers }, logger);
}
