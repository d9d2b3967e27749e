/**
 * A WebSocket session's SSML stream (initConnection text_type "ssml"): the text messages joined
 * are one SSML text, cut at generation points into whole documents (core's cutSsml closes the
 * elements open at a cut and reopens them in the rest; a cut inside a tag waits for its end).
 * Here: where a cut may fall (sentence ends and word ends outside markup), the spoken text a
 * flush's text rule counts, a document for each piece, and positions in a piece mapped back to
 * the session's text for error messages.
 */
import { cutSsml, errors, isSawtError, SawtError } from '@sawt/core';

/** Tags, comments, CDATA and processing instructions, complete or cut off at the end. */
const MARKUP = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<\?[\s\S]*?(?:\?>|$)|<(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^'">])*(?:>|$)/gu;

/** `text` with its markup blanked out (U+FFFF, same length): sentence and word ends are searched in what remains. */
export function maskMarkup(text: string): string {
  return text.replace(MARKUP, (m) => '\uFFFF'.repeat(m.length));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'' };

/**
 * The text between the tags, entities read, white space collapsed: what a flush's text rule
 * counts (the engine bills the exact spoken text: sub aliases instead of their content).
 */
export function spokenText(ssml: string): string {
  return ssml
    .replace(MARKUP, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/giu, (m, e: string) => {
      if (e[0] !== '#') return ENTITIES[e] ?? m;
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    })
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Whether a piece of SSML starts as a document (else it is SSML content, read inside a <speak>). */
const HAS_ROOT = /^\uFEFF?\s*<(?:speak[\s>/]|\?xml[\s?]|!DOCTYPE)/iu;

/**
 * A piece's SSML as the engine reads it: raw text from the session's stream behind the reopened
 * elements (`prefixLength` characters not in the stream), wrapped in <speak> when the session
 * sends SSML content without a root.
 */
export interface SsmlPiece {
  document: string;
  /** Characters at the start of `document` that the client did not send there (reopened elements, <speak>). */
  prefixLength: number;
  /** Where the piece's own text starts in the session's stream (1-based line and column). */
  at: { line: number; column: number };
}

export function pieceDocument(text: string, prefixLength: number, at: { line: number; column: number }): SsmlPiece {
  if (HAS_ROOT.test(text)) return { document: text, prefixLength, at };
  return { document: `<speak>${text}</speak>`, prefixLength: prefixLength + '<speak>'.length, at };
}

/** The line and column after `text`, starting at `at`. */
export function advance(at: { line: number; column: number }, text: string): { line: number; column: number } {
  let { line, column } = at;
  for (const ch of text) {
    if (ch === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}

/**
 * An SSML error of a piece (`… at L:C`, a place in its document) with the place in the session's
 * text instead; a place inside the reopened elements stays the piece's.
 */
export function inSessionText(e: unknown, piece: SsmlPiece): unknown {
  if (!isSawtError(e) || e.code !== 40001) return e;
  const m = /\bat (\d+):(\d+)/u.exec(e.message);
  if (!m) return e;
  const doc = piece.document;
  let offset = 0;
  for (let line = 1; line < Number(m[1]); line++) {
    const nl = doc.indexOf('\n', offset);
    if (nl < 0) return e;
    offset = nl + 1;
  }
  offset += Number(m[2]) - 1;
  if (offset < piece.prefixLength) return e;
  const place = advance(piece.at, doc.slice(piece.prefixLength, offset));
  return new SawtError('validation', `${e.message.slice(0, m.index)}at ${place.line}:${place.column}${e.message.slice(m.index + m[0].length)} of the session's text`, { cause: e });
}

/**
 * Splits one SSML document over `maxChars` into whole documents of about that size each, cut at
 * the last sentence end that leaves a piece at least half full, else at the last word end outside
 * markup (cutSsml closes and reopens the elements around each cut).
 */
export function splitSsml(text: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const visible = maskMarkup(rest.slice(0, maxChars));
    let cut = -1;
    for (let i = visible.length - 1; i >= maxChars / 2 && cut < 0; i--) if (/[.!?؟\n…؛;]/u.test(visible[i]!)) cut = i + 1;
    for (let i = visible.length - 1; i > 0 && cut < 0; i--) if (/\s/u.test(visible[i]!)) cut = i;
    const piece = cutSsml(rest, cut > 0 ? cut : maxChars);
    if (!piece || piece.rest.length >= rest.length) break;
    out.push(piece.head);
    rest = piece.rest;
  }
  out.push(rest);
  return out.filter((p) => spokenText(p) !== '');
}

/** 40001 for a flush that ends inside a tag (the tag can never be completed by this flush). */
export function unfinishedAtFlush(text: string): SawtError {
  const start = text.lastIndexOf('<');
  const shown = text.slice(start, start + 40);
  return errors.validation(`SSML: the text of this flush ends inside markup (${JSON.stringify(shown)}); send the whole tag before flush`);
}
