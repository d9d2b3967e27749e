/** Splits text into synthesis segments: sentences, then over-long ones at clause marks, then between words. */
const SENTENCE_END = /[.!?؟۔…\n]+["'»”)]*\s*/gu;
const CLAUSE_MARK = /[،,؛;:]\s*/gu;

export interface SegmentOptions {
  /** Segments longer than this (in characters) are split at clause marks, then words. */
  maxChars?: number;
  /** The first segment is kept shorter still, for a fast first audio chunk. */
  firstMaxChars?: number;
}

function splitKeep(text: string, re: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const end = (m.index ?? 0) + m[0].length;
    out.push(text.slice(last, end));
    last = end;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.map((s) => s.trim()).filter((s) => s !== '' && /[\p{L}\p{N}]/u.test(s));
}

function splitWords(text: string, maxChars: number): string[] {
  const words = text.split(/\s+/u).filter(Boolean);
  const out: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur && cur.length + 1 + w.length > maxChars) {
      out.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(cur);
  return out;
}

function fit(piece: string, maxChars: number): string[] {
  if (piece.length <= maxChars) return [piece];
  const clauses = splitKeep(piece, CLAUSE_MARK);
  const out: string[] = [];
  let cur = '';
  for (const c of clauses) {
    if (c.length > maxChars) {
      if (cur) {
        out.push(cur);
        cur = '';
      }
      out.push(...splitWords(c, maxChars));
    } else if (cur && cur.length + 1 + c.length > maxChars) {
      out.push(cur);
      cur = c;
    } else cur = cur ? `${cur} ${c}` : c;
  }
  if (cur) out.push(cur);
  return out;
}

/** A piece with something to say (word splitting can leave one of symbols only). */
const SPEAKABLE = /[\p{L}\p{N}]/u;

export function segmentText(text: string, opts: SegmentOptions = {}): string[] {
  const maxChars = opts.maxChars ?? 240;
  const firstMax = opts.firstMaxChars ?? 120;
  const segments = splitKeep(text, SENTENCE_END).flatMap((s) => fit(s, maxChars)).filter((s) => SPEAKABLE.test(s));
  if (segments.length && segments[0]!.length > firstMax) {
    const [head, ...rest] = fit(segments[0]!, firstMax).filter((s) => SPEAKABLE.test(s));
    const tail = rest.join(' ');
    segments.splice(0, 1, ...(head ? [head] : []), ...(tail ? [tail] : []));
  }
  return segments;
}
