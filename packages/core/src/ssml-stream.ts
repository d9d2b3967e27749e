/**
 * SSML arriving in fragments (WebSocket `text` messages): a generation point cuts the buffered
 * SSML into a head that is a whole document (the elements still open are closed) and a rest that
 * reopens them, so each piece parses on its own and keeps its prosody, language and emphasis. A
 * cut that falls inside a tag, comment, CDATA section or entity moves back before it: a tag split
 * across messages waits for its end.
 */

export interface SsmlCut {
  /** A whole SSML document: the text up to the cut, with the open elements closed. */
  head: string;
  /** The text after the cut, behind the open elements' start tags (as written). */
  rest: string;
}

interface OpenTag {
  name: string;
  start: string;
}

/**
 * Where the markup of `text` stands at each offset: the start of an unfinished construct (tag,
 * comment, CDATA, entity) at the end, and the elements open there.
 */
function scan(text: string, end: number): { unfinishedAt: number | null; open: OpenTag[] } {
  const open: OpenTag[] = [];
  let i = 0;
  while (i < end) {
    const ch = text[i];
    if (ch === '&') {
      const semi = text.indexOf(';', i);
      if (semi < 0 || semi >= end) {
        // an entity cut in two (&am|p;) waits; a bare & is the parser's to refuse
        if (/^&#?[A-Za-z0-9]*$/u.test(text.slice(i, end))) return { unfinishedAt: i, open };
      }
      i++;
      continue;
    }
    if (ch !== '<') {
      i++;
      continue;
    }
    const close = (marker: string) => {
      const at = text.indexOf(marker, i);
      return at < 0 || at + marker.length > end ? -1 : at + marker.length;
    };
    let after: number;
    if (text.startsWith('<!--', i)) after = close('-->');
    else if (text.startsWith('<![CDATA[', i)) after = close(']]>');
    else if (text.startsWith('<?', i)) after = close('?>');
    else after = tagEnd(text, i, end);
    if (after < 0) return { unfinishedAt: i, open };
    const tag = text.slice(i, after);
    const m = /^<(\/?)([A-Za-z_:][\w.:-]*)/u.exec(tag);
    if (m && !tag.endsWith('/>')) {
      if (m[1]) {
        const top = open.map((o) => o.name).lastIndexOf(m[2]!);
        if (top >= 0) open.length = top;
      } else open.push({ name: m[2]!, start: tag });
    }
    i = after;
  }
  return { unfinishedAt: null, open };
}

/** The end of the tag starting at `i` (past its `>`, quotes respected), or -1 before `end`. */
function tagEnd(text: string, i: number, end: number): number {
  let quote: string | null = null;
  for (let j = i + 1; j < end; j++) {
    const c = text[j]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return j + 1;
  }
  return -1;
}

/** A cut with where it fell: what a stream of fragments needs to follow its text. */
export interface SsmlCutAt extends SsmlCut {
  /** Where in `text` the cut fell (the asked place, or before the construct it fell in). */
  at: number;
  /** Characters at the start of `rest` that are the reopened start tags (not text after the cut). */
  reopened: number;
}

/**
 * cutSsml, saying where the cut fell: `head` is text[0, at) with the open elements closed, `rest`
 * is their start tags (`reopened` characters) followed by text[at…].
 */
export function cutSsmlAt(text: string, cut: number): SsmlCutAt | null {
  let at = Math.min(cut, text.length);
  const first = scan(text, at);
  if (first.unfinishedAt !== null) at = first.unfinishedAt;
  if (at <= 0) return null;
  const { open } = first.unfinishedAt !== null ? scan(text, at) : first;
  const closing = open.map((o) => `</${o.name}>`).reverse().join('');
  const reopen = open.map((o) => o.start).join('');
  return { head: text.slice(0, at) + closing, rest: reopen + text.slice(at), at, reopened: reopen.length };
}

/**
 * Cuts the buffered SSML `text` at `cut` (or before the construct the cut falls in). Null when
 * nothing before the cut is complete yet (wait for more text).
 */
export function cutSsml(text: string, cut: number): SsmlCut | null {
  const c = cutSsmlAt(text, cut);
  return c && { head: c.head, rest: c.rest };
}

/** True when `text` (fragments joined so far) ends inside a tag, comment, CDATA section or entity. */
export function endsInsideMarkup(text: string): boolean {
  return scan(text, text.length).unfinishedAt !== null;
}
