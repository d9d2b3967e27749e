import { setTimeout as sleep } from 'node:timers/promises';
import { turnBudget, type Admission, type SpeechChunk, type SpeechStream } from '@sawt/core';
import { AlignmentBuilder } from './alignment-builder.js';
import { firstAudioWaits } from './first-audio.js';
import type { WsLimits } from './limits.js';
import { messageBuffers } from './message-buffers.js';
import { audioMessage, emptyFinalMessage } from './messages.js';

/** The most audio one message carries after the first of a piece (ms). */
const MAX_MESSAGE_MS = 1000;

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
  /** Sends an audio message (counted in the session's figures); its buffer goes back to messageBuffers once written. */
  sendAudio(msg: Buffer): Promise<boolean>;
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
    // it did when they came as events. The first message goes out alone, as soon as a second chunk
    // shows it is not the last; after it, the chunks read together go out together, in messages of
    // at most MAX_MESSAGE_MS of audio (fewer, larger messages: less work per second of audio for the
    // server and the client, and no audio waits longer than before: what was read goes out at once,
    // but for the chunk held back).
    const align = new AlignmentBuilder(this.piece.text, sampleRate);
    const maxBytes = (sampleRate * 2 * MAX_MESSAGE_MS) / 1000;
    let held: SpeechChunk[] = [];
    let heldBytes = 0;
    let lastSent = Promise.resolve(true);
    const emit = (chunks: SpeechChunk[], isFinal: boolean) => {
      lastSent = this.out.sendAudio(audioMessage(chunks.map((c) => c.pcm), sampleRate, align.take(), isFinal, messageBuffers));
    };
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
        for (const chunk of batch) align.add(chunk.info);
        for (const chunk of batch) {
          if (this.gone()) throw new Error('cancelled');
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
      if (held.length) emit(held, this.piece.flushEnd);
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
