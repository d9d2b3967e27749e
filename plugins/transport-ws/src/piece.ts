import { firstAudioWaits, outputTooLong, turnBudget, type CutBy, type PaidAdmission, type SpeechChunk, type SpeechStream } from '@sawt/core';
import { AlignmentBuilder } from './alignment-builder.js';
import { messageBuffers } from './message-buffers.js';
import type { ConnectionEncoder } from './encoding.js';
import { audioMessage, emptyFinalMessage, type Mark } from './messages.js';
import { NotReading } from './send-window.js';

/** The most audio one message carries after the first of a piece (ms). */
const MAX_MESSAGE_MS = 1000;

/** What one piece may hold, as one HTTP request (transport-http's default maxTextChars and maxOutputSeconds). */
export const PIECE_LIMITS = { maxChars: 5000, maxOutputSeconds: 900 } as const;

const SENTENCE_END = /[.!?؟\n…؛;]/u;

/** Splits text into pieces of at most `maxChars` code points, cut after a sentence end in the second half, else at the last white space, else at the limit. */
export function splitPiece(text: string, maxChars: number = PIECE_LIMITS.maxChars): string[] {
  const out: string[] = [];
  let rest = [...text];
  while (rest.length > maxChars) {
    const head = rest.slice(0, maxChars);
    let cut = -1;
    for (let i = head.length - 1; i >= maxChars / 2 && cut < 0; i--) if (SENTENCE_END.test(head[i]!)) cut = i + 1;
    for (let i = head.length - 1; i > 0 && cut < 0; i--) if (/\s/u.test(head[i]!)) cut = i;
    if (cut <= 0) cut = maxChars;
    out.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
  }
  out.push(rest.join(''));
  return out.filter((p) => /[\p{L}\p{N}]/u.test(p));
}

/** A piece of text the TextChunker cut, waiting for generation. */
export interface Piece {
  text: string;
  /** The last piece of a flush: its last audio message carries isFinal. */
  flushEnd: boolean;
  /** When the piece was cut from the text (performance.now()): first-audio latency counts from here. */
  queuedAt: number;
  /** An SSML document (text_type ssml): its alignment covers the spoken text the paid path prepared, not the markup. */
  ssml?: boolean;
}

/** What a piece's paid synthesis gives: the speech, its admission and (startPaidSynthesis) the spoken text it bills. */
export interface StartedPiece {
  stream: SpeechStream;
  admission: PaidAdmission;
  billableText?: string;
}

/** The connection, as the generation of a piece sees it. */
export interface PieceOutput {
  /** Sends a message (an audio message's buffer goes back to messageBuffers once written); resolves false when it could not be sent (the client is gone). */
  send(msg: string | Buffer): Promise<boolean>;
  sendError(e: unknown): Promise<boolean>;
  /** Resolves once the client has read enough of what was sent (SendWindow.belowHighWater); rejects with NotReading. */
  drained(): Promise<void>;
  closed(): boolean;
  /** The client stopped reading: the session closes 1008 and drops its queue. */
  notReading(): void;
}

/**
 * The generation of one piece: its paid synthesis streamed as audio messages, the last of a flush with
 * isFinal. Reading stops while the client is behind (the native job pauses with it); the reservation is
 * settled once the last message is sent, and released on any failure.
 */
export class PieceRun {
  stream: SpeechStream | null = null;
  cancelled = false;
  /** Who cut the piece short (the ledger's reason for its partial charge). */
  private cutBy: CutBy | null = null;

  constructor(readonly piece: Piece, private readonly out: PieceOutput) {}

  /** Stops the piece: audio already handed to the socket is charged, with `cutBy` in the ledger. */
  cancel(cutBy: CutBy = 'server shutdown'): void {
    this.cutBy ??= cutBy;
    this.cancelled = true;
    this.stream?.destroy();
    this.wake();
  }

  /** Ends a wait for the client (drain) when the piece is cancelled. */
  private wake: () => void = () => {};
  private readonly cancelledWhileWaiting = new Promise<void>((resolve) => (this.wake = resolve));

  private gone(): boolean {
    return this.cancelled || this.out.closed();
  }

  /** Sends the empty final message of a flush with nothing left to generate. */
  async sendEmptyFinal(sampleRate: number, encoder: ConnectionEncoder | null = null): Promise<void> {
    const rest = encoder ? await encoder.encode([], true) : null;
    if (rest?.length) await this.out.send(audioMessage(rest, encoder!.rate, null, true, messageBuffers));
    else await this.out.send(emptyFinalMessage(encoder?.rate ?? sampleRate));
  }

  /** Streams the audio of the paid synthesis `start` begins; its failure to start is sent as an error. */
  async run(start: () => Promise<StartedPiece>, sampleRate: number, encoder: ConnectionEncoder | null = null): Promise<void> {
    const firstAudioSent = firstAudioWaits.enter();
    try {
      await this.generate(start, sampleRate, firstAudioSent, encoder);
    } finally {
      firstAudioSent();
    }
  }

  private async generate(start: () => Promise<StartedPiece>, sampleRate: number, firstAudioSent: () => void, encoder: ConnectionEncoder | null): Promise<void> {
    let started: StartedPiece;
    try {
      started = await start();
    } catch (e) {
      if (!this.cancelled && !this.out.closed()) await this.out.sendError(e);
      return;
    }
    const { stream, admission, billableText } = started;
    this.stream = stream;
    if (this.gone()) {
      stream.destroy();
      await admission.settleCut(0, this.cutBy ?? 'client disconnected');
      return;
    }
    // One chunk is held back so that the last message of a flush can carry isFinal. The first message goes
    // out alone; then the chunks read together go together, in messages of at most MAX_MESSAGE_MS.
    // Times from the start of the audio as played (an MP3 plays its encoder's delay first).
    const offsetMs = encoder?.playedDelayMs ?? 0;
    const align = new AlignmentBuilder(this.piece.ssml && billableText !== undefined ? billableText : this.piece.text, sampleRate, { offsetMs });
    // SSML marks read so far, timed like the alignment; each goes with the next message.
    const marks: Mark[] = [];
    const maxBytes = (sampleRate * 2 * MAX_MESSAGE_MS) / 1000;
    let held: SpeechChunk[] = [];
    let heldBytes = 0;
    let lastSent = Promise.resolve(true);
    // Audio handed to the socket (the send's callback): what a piece cut short is charged for.
    let deliveredSamples = 0;
    const inFlight = new Set<Promise<boolean>>();
    const emit = (chunks: SpeechChunk[], isFinal: boolean) => {
      const samples = chunks.reduce((n, c) => n + c.info.samples, 0);
      const alignment = align.take();
      const reached = marks.splice(0);
      const pcm = chunks.map((c) => c.pcm);
      // Encoded (off the event loop) in order; the messages go out in the same order.
      const message = encoder
        ? encoder.encode(pcm, isFinal).then((bytes) => audioMessage(bytes, encoder.rate, alignment, isFinal, messageBuffers, reached))
        : audioMessage(pcm, sampleRate, alignment, isFinal, messageBuffers, reached);
      const sent = (message instanceof Promise ? message.then((m) => this.out.send(m)) : this.out.send(message)).then((ok) => {
        if (ok) deliveredSamples += samples;
        inFlight.delete(sent);
        return ok;
      });
      inFlight.add(sent);
      lastSent = sent;
    };
    const maxSamples = PIECE_LIMITS.maxOutputSeconds * sampleRate;
    let generatedSamples = 0;
    let capHit = false;
    // Sends what is held but the last `keep` chunks; then waits for the client to read, and gives
    // way to pieces that wait for their first audio or to the turn's other work (turn budget).
    let sentOne = false;
    const sendHeld = async (keep: 0 | 1) => {
      const out = held.slice(0, held.length - keep);
      held = held.slice(held.length - keep);
      heldBytes = held.reduce((n, c) => n + c.pcm.length, 0);
      emit(out, false);
      sentOne = true;
      firstAudioSent();
      await this.drain();
      await (firstAudioWaits.yieldToWaiting() ?? turnBudget.spend());
    };
    try {
      for await (const first of stream as AsyncIterable<SpeechChunk>) {
        // The chunks already waiting come with the first: their words go with the next message.
        const batch = [first];
        for (let c: SpeechChunk | null; (c = stream.read() as SpeechChunk | null) !== null;) batch.push(c);
        for (const chunk of batch) {
          align.add(chunk.info);
          for (const m of chunk.info.marks ?? []) marks.push({ name: m.name, timeMs: Math.round(m.timeMs + offsetMs) });
        }
        for (const chunk of batch) {
          if (this.gone()) throw new Error('cancelled');
          generatedSamples += chunk.info.samples;
          if (generatedSamples > maxSamples) {
            capHit = true;
            throw outputTooLong(PIECE_LIMITS.maxOutputSeconds);
          }
          if (held.length && (!sentOne || heldBytes + chunk.pcm.length > maxBytes)) {
            await sendHeld(0);
            if (this.gone()) throw new Error('cancelled');
          }
          held.push(chunk);
          heldBytes += chunk.pcm.length;
        }
        // What was read goes out now, but for the newest chunk (it may be the last of the flush).
        if (held.length > 1) await sendHeld(1);
        else await this.drain();
      }
      if (this.gone()) throw new Error('cancelled');
      // The slot goes back before the last message: a request sent once it arrived is not refused for concurrency.
      await admission.freeSlot();
      if (held.length) emit(held, this.piece.flushEnd);
      else if (this.piece.flushEnd) lastSent = this.sendEmptyFinal(sampleRate, encoder).then(() => !this.out.closed());
      if (!(await lastSent)) throw new Error('client gone before the audio was sent');
      await admission.settle();
    } catch (e) {
      stream.destroy();
      const cutBy: CutBy | null = capHit ? 'output cap' : this.cutBy ?? (this.cancelled || this.out.closed() ? 'client disconnected' : null);
      if (cutBy) {
        // The sends under way settle first (their callbacks say whether the socket took them).
        await settledWithin([...inFlight], 1000);
        await admission.settleCut(deliveredSamples, cutBy);
      } else await admission.release(`websocket piece failed: ${(e as Error).message}`);
      if (!this.cancelled && !this.out.closed()) await this.out.sendError(e);
    }
  }

  /** Backpressure: waits for the client to read; one that stopped is closed 1008 (PieceOutput.notReading) and the piece fails. */
  private async drain(): Promise<void> {
    if (this.gone()) return;
    try {
      await Promise.race([this.out.drained(), this.cancelledWhileWaiting]);
    } catch (e) {
      if (!(e instanceof NotReading) || this.gone()) return;
      this.cutBy ??= 'client not reading';
      this.cancelled = true;
      this.out.notReading();
      throw e;
    }
  }
}

/** Resolves once every promise settled, or after `ms`. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (!promises.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
