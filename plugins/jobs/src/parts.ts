/**
 * A job's text cut into parts (what one runner renders under one lease) at sentence ends, and
 * sentences (what one caption cue shows).
 */
import { countChars, countWords, type SpeechStep } from '@sawt/core';

export interface TextPart {
  /** Offset (UTF-16 index) of its first character in the spoken text. */
  start: number;
  text: string;
  /** Billable characters: the parts' sum is the billable count of the whole text. */
  chars: number;
  /** What its synthesis reads when the engine prepared the text (SSML, dictionaries); `text` is then the words spoken. */
  steps?: SpeechStep[];
}

/** After a sentence's end mark (and closing quotes), or at a line break: where the next one starts. */
const BOUNDARY = /[.!?؟۔…]+["»”')\]]*\s+|\s*\n\s*/gu;

/**
 * Start offsets of the sentences of text[from, to) (the first is `from`); a sentence longer than
 * `maxChars` is cut at a space before that length.
 */
export function sentenceStarts(text: string, from: number, to: number, maxChars = Infinity): number[] {
  const starts = [from];
  const re = new RegExp(BOUNDARY.source, 'gu');
  re.lastIndex = from;
  const add = (at: number) => {
    let last = starts[starts.length - 1]!;
    while (at - last > maxChars) {
      const space = text.lastIndexOf(' ', last + maxChars);
      const cut = space > last ? space + 1 : last + maxChars;
      starts.push(cut);
      last = cut;
    }
    if (at > last && at < to) starts.push(at);
  };
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) add(m.index + m[0].length);
  add(to);
  return starts;
}

/**
 * The parts of a text: whole sentences gathered up to `partChars` characters each. A part with
 * fewer than two words (a stray mark after the last sentence) joins the one before it.
 */
export function splitParts(text: string, partChars: number): TextPart[] {
  const from = text.length - text.trimStart().length;
  const to = text.trimEnd().length;
  if (to <= from) return [];
  const starts = sentenceStarts(text, from, to, partChars);
  const bounds: Array<[number, number]> = [];
  let partStart = from;
  for (let i = 1; i <= starts.length; i++) {
    const end = i < starts.length ? starts[i]! : to;
    const sentenceStart = starts[i - 1]!;
    if (end - partStart > partChars && sentenceStart > partStart) {
      bounds.push([partStart, sentenceStart]);
      partStart = sentenceStart;
    }
  }
  bounds.push([partStart, to]);
  const parts: TextPart[] = [];
  for (const [s, e] of bounds) {
    const slice = text.slice(s, e);
    const prev = parts[parts.length - 1];
    if (prev && countWords(slice) < 2) {
      prev.text += slice;
      prev.chars += countChars(slice);
      continue;
    }
    parts.push({ start: s, text: slice, chars: countChars(slice) });
  }
  return parts;
}
