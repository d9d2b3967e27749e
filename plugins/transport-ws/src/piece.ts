import { setTimeout as sleep } from 'node:timers/promises';
import { turnBudget, type Admission, type SpeechChunk, type SpeechStream } from '@sawt/core';
import { AlignmentBuilder } from './alignment-builder.js';
import { firstAudioWaits } from './first-audio.js';
import type { WsLimits } from './limits.js';
import { audioMessage, emptyFinalMessage } from './messages.js';

/** A piece of text the TextChunker cut, waiting for generation. */
export interface Piece {
  text: string;
  /** The last piece of a flush: its last audio message carries isFinal. */
  flushEnd: boolean;
  /** When the piece was cut from the text (performance.now()): first-audio latency counts from here. */
  queuedAt: number;
}

/** The connection, as the generation of a piece sees it. */
export interface PieceOutput {
  /** Sends a message; resolves false when it could not be sent (the client is gone). */
  send(msg: string): Promise<boolean>;
  sendError(e: unknown): Promise<boolean>;
  /** Bytes queued on the socket, not yet sent to the client. */
  bufferedAmount(): number;
  closed(): boolean;
  /** The client stopped reading: the session closes 1008 and drops its queue. */
  notReading(): void;
  /** Sends an audio message (counted in the session's figures). */
  sendAudio(msg: string): Promise<boolean>;
}

/**
 * The generation of one piece: its paid synthesis streamed to the client as audio messages with
 * the alignment of the words read so far, the last of a flush with isFinal. Reading the speech
 * stream stops while the socket holds more than highWaterBytes (the native job pauses with it);
 * the reservation is settled once the last message is sent, and released on any failure.
 */
export class PieceRun {
  stream: SpeechStream | null = null;
  cancelled = false;
  /** Waiting for the client to read. */
  paused = false;

  constructor(readonly piece: Piece, private readonly out: PieceOutput, private readonly limits: WsLimits) {}

  cancel(): void {
    this.cancelled = true;
    this.stream?.destroy();
  }

  private gone(): boolean {
    return this.cancelled || this.out.closed();
  }

  /** Sends the empty final message of a flush with nothing left to generate. */
  async sendEmptyFinal(sampleRate: number): Promise<void> {
    await this.out.send(emptyFinalMessage(sampleRate));
  }

  /** Streams the audio of the paid synthesis `start` begins; its failure to start is sent as an error. */
  async run(start: () => Promise<{ stream: SpeechStream; admission: Admission }>, sampleRate: number): Promise<void> {
    const firstAudioSent = firstAudioWaits.enter();
    try {
      await this.generate(start, sampleRate, firstAudioSent);
    } finally {
      firstAudioSent();
    }
  }

  private async generate(start: () => Promise<{ stream: SpeechStream; admission: Admission }>, sampleRate: number, firstAudioSent: () => void): Promise<void> {
    let stream: SpeechStream;
    let admission: Admission;
    try {
      ({ stream, admission } = await start());
    } catch (e) {
      if (!this.cancelled && !this.out.closed()) await this.out.sendError(e);
      return;
    }
    this.stream = stream;
    if (this.gone()) {
      stream.destroy();
      await admission.release('websocket piece cancelled');
      return;
    }
    // One chunk is held back so that the last audio message of a flush can carry isFinal. A message
    // carries the word timings of every chunk read so far (those waiting in the stream included), as
    // it did when they came as events.
    const align = new AlignmentBuilder(this.piece.text, sampleRate);
    let held: SpeechChunk | null = null;
    let lastSent = Promise.resolve(true);
    const emit = ({ pcm }: SpeechChunk, isFinal: boolean) => {
      lastSent = this.out.sendAudio(audioMessage(pcm, sampleRate, align.take(), isFinal));
    };
    try {
      for await (const first of stream as AsyncIterable<SpeechChunk>) {
        // The chunks already waiting come with the first: their words go with the next message.
        const batch = [first];
        for (let c: SpeechChunk | null; (c = stream.read() as SpeechChunk | null) !== null;) batch.push(c);
        for (const chunk of batch) align.add(chunk.info);
        for (const chunk of batch) {
          if (this.gone()) throw new Error('cancelled');
          const sending = held !== null;
          if (held) {
            emit(held, false);
            firstAudioSent();
          }
          held = chunk;
          await this.drain();
          // Only once its own first audio is out (a piece never waits for the pieces that wait): the
          // next turn while another piece waits for its first audio, or when this turn's budget of
          // delivery work is spent (thirty sessions' messages no longer go out in one stretch).
          if (sending) await (firstAudioWaits.yieldToWaiting() ?? turnBudget.spend());
        }
      }
      if (this.gone()) throw new Error('cancelled');
      if (held) emit(held, this.piece.flushEnd);
      else if (this.piece.flushEnd) lastSent = this.out.send(emptyFinalMessage(sampleRate));
      if (!(await lastSent)) throw new Error('client gone before the audio was sent');
      await admission.settle();
    } catch (e) {
      stream.destroy();
      await admission.release(this.cancelled ? 'websocket piece cancelled' : `websocket piece failed: ${(e as Error).message}`);
      if (!this.cancelled && !this.out.closed()) await this.out.sendError(e);
    }
  }

  /**
   * Backpressure: waits while the socket holds more than highWaterBytes. Paused for
   * stallTimeoutMs without relief, or above maxBufferedBytes at any time: the client is not
   * reading (the session closes 1008) and the piece fails.
   */
  private async drain(): Promise<void> {
    const { highWaterBytes, maxBufferedBytes, stallTimeoutMs } = this.limits;
    const since = Date.now();
    try {
      while (!this.out.closed() && !this.cancelled && this.out.bufferedAmount() > highWaterBytes) {
        this.paused = true;
        if (this.out.bufferedAmount() > maxBufferedBytes || Date.now() - since > stallTimeoutMs) {
          this.cancelled = true;
          this.out.notReading();
          throw new Error('client not reading');
        }
        await sleep(Math.min(20, stallTimeoutMs));
      }
    } finally {
      this.paused = false;
    }
  }
}
