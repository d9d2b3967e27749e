import { cutSsmlAt, endsInsideMarkup, errors, meetsTextMinimum, TEXT_TOO_SHORT_MESSAGE } from '@sawt/core';
import { advance, maskMarkup, pieceDocument, spokenText, unfinishedAtFlush, type SsmlPiece } from './ssml-stream-text.js';
import { ChunkerBuffer, cutPosition, hasSpeakable, NOTHING_TO_SPEAK, type Chunker } from './text-chunker.js';

/** Markup that is heard or timed without words: a pause or a mark. */
const RENDERED_MARKUP = /<(?:break|mark)[\s/>]/u;

/** The length of masked SSML: its characters outside markup. */
const textLength = (masked: string) => masked.replace(/\uFFFF/gu, '').length;

/**
 * The chunking of a session whose text is SSML (initConnection text_type "ssml"): the text
 * messages joined are one SSML text, cut where TextChunker's policy cuts plain text (sentence ends,
 * the length schedule, try_trigger_generation), markup left out of the search and the lengths; each
 * cut goes through cutSsmlAt, so a piece is a whole document (the elements open at the cut closed,
 * and reopened for the rest) and a tag split across messages waits for its end. A flush ends the
 * text so far (its open elements stay open for the next); its text rule counts the text between the
 * tags.
 */
export class SsmlChunker extends ChunkerBuffer implements Chunker {
  /** Characters at the start of the buffer that are reopened elements, not text the client sent there. */
  #reopened = 0;
  /** Where the client's text in the buffer starts in the session's text. */
  #at = { line: 1, column: 1 };
  /** The last piece next() or flush() returned: its document and where it came from. */
  lastPiece: SsmlPiece | null = null;

  next(tryNow = false): string | null {
    const cut = cutPosition(maskMarkup(this.buffer), this.pieces, tryNow, this.options, textLength);
    if (cut <= this.#reopened) return null;
    return this.#take(cut);
  }

  flush(): string | null {
    const spoken = spokenText(this.sinceFlush);
    this.sinceFlush = '';
    if (endsInsideMarkup(this.buffer)) {
      const e = unfinishedAtFlush(this.buffer);
      this.#dropFlush();
      throw e;
    }
    const fail = !meetsTextMinimum(spoken) ? TEXT_TOO_SHORT_MESSAGE : !hasSpeakable(spoken) ? NOTHING_TO_SPEAK : null;
    if (fail) {
      this.#dropFlush();
      throw errors.validation(`${fail} (counted on the text between the SSML tags)`);
    }
    return this.#take(this.buffer.length, true);
  }

  /** Drops the buffered text (the client's clear); the elements open in it stay open for the text that follows. */
  clear(): void {
    const c = cutSsmlAt(this.buffer, this.buffer.length);
    this.#at = advance(this.#at, this.buffer.slice(this.#reopened));
    this.buffer = c && c.at > this.#reopened ? c.rest.slice(0, c.reopened) : this.buffer.slice(0, this.#reopened);
    this.#reopened = this.buffer.length;
    this.sinceFlush = '';
  }

  /** A refused flush: its text goes with the elements it opened; those open before it stay. */
  #dropFlush(): void {
    this.#at = advance(this.#at, this.buffer.slice(this.#reopened));
    this.buffer = this.buffer.slice(0, this.#reopened);
  }

  /** Cuts the buffer at `cut` (or before the construct it falls in); null when the head has nothing to speak (it waits, but at a flush). */
  #take(cut: number, flushing = false): string | null {
    const c = cutSsmlAt(this.buffer, cut);
    if (!c || c.at <= this.#reopened) return null;
    const speaks = hasSpeakable(spokenText(c.head));
    // Markup or punctuation alone waits for the text that follows.
    if (!speaks && !flushing) return null;
    const piece = pieceDocument(c.head, this.#reopened, this.#at);
    this.#at = advance(this.#at, this.buffer.slice(this.#reopened, c.at));
    this.buffer = c.rest;
    this.#reopened = c.reopened;
    // A flush's rest without words is a piece when it pauses or marks (silence, a mark's time; nothing
    // billed), else (closing tags, punctuation) nothing; its open elements stay.
    if (!speaks && !RENDERED_MARKUP.test(c.head.slice(this.#reopened))) return null;
    this.pieces++;
    this.lastPiece = piece;
    return piece.document;
  }
}
