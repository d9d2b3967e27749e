/**
 * Parts of a job whose text the engine prepares (SpeechSynthesizer.prepare): SSML, or a text read
 * with pronunciation dictionaries. Each part carries the steps its synthesis reads and, as its
 * text, the words it speaks (what captions show and what is billed), so a part renders the same
 * on any node at any time, whatever the dictionaries become after submit.
 */
import { countChars, type SpeechStep } from '@sawt/core';
import { splitParts, type TextPart } from './parts.js';

type SpeakStep = Extract<SpeechStep, { kind: 'speak' }>;

/** Prepares one text (no markup) with the job's dictionaries: the words spoken and the steps. */
export type PrepareText = (text: string) => Promise<{ billableText: string; steps: SpeechStep[] }>;

/**
 * The steps of a whole SSML document in parts of about `partChars` spoken characters: a long
 * speak step is cut at sentence ends (each piece keeps its prosody and language); pauses and marks
 * stay where they are. A part's text is its spoken pieces joined by a space.
 */
export function ssmlParts(steps: readonly SpeechStep[], partChars: number): TextPart[] {
  const parts: TextPart[] = [];
  let current: { steps: SpeechStep[]; texts: string[]; chars: number } = { steps: [], texts: [], chars: 0 };
  let offset = 0;
  const close = () => {
    if (!current.texts.length) return;
    const text = current.texts.join(' ');
    parts.push({ start: offset, text, chars: countChars(text), steps: current.steps });
    // The space that joins it to the next part's words is billed with it, as in the whole text.
    if (parts.length > 1) parts[parts.length - 2]!.chars++;
    offset += text.length + 1;
    current = { steps: [], texts: [], chars: 0 };
  };
  for (const step of steps) {
    if (step.kind !== 'speak') {
      current.steps.push(step);
      continue;
    }
    // A step's marks sit before a word (its index in the step's text): each goes with the piece
    // holding that word, re-indexed there; a mark after the last word rides on the last piece.
    const pieces = splitParts(step.text, partChars);
    const { marks: stepMarks, ...rest } = step;
    let before = 0; // words of the step before this piece
    for (const [p, piece] of pieces.entries()) {
      const text = piece.text.trim();
      const n = text ? text.split(/\s+/u).length : 0;
      const last = p === pieces.length - 1;
      const marks = (stepMarks ?? []).filter((m) => m.words >= before && (m.words < before + n || last)).map((m) => ({ name: m.name, words: m.words - before }));
      before += n;
      if (current.chars > 0 && current.chars + text.length > partChars) close();
      current.steps.push({ ...rest, text, ...(marks.length && { marks }) } satisfies SpeakStep);
      current.texts.push(text);
      current.chars += text.length + 1;
    }
  }
  // Pauses and marks after the last words go with the last part.
  if (!current.texts.length && parts.length) parts[parts.length - 1]!.steps!.push(...current.steps);
  close();
  return parts;
}

/** Each part of a plain text prepared with the job's dictionaries: its spoken words and its steps. */
export async function dictionaryParts(parts: readonly TextPart[], prepare: PrepareText): Promise<TextPart[]> {
  const out: TextPart[] = [];
  for (const [i, part] of parts.entries()) {
    const { billableText, steps } = await prepare(part.text);
    // start stays the part's offset in the text as written: chapters are found by it. The space
    // that joins a part to the next is billed with it, as in the whole text.
    out.push({ start: part.start, text: billableText, chars: countChars(billableText) + (i + 1 < parts.length ? 1 : 0), steps });
  }
  return out;
}

/**
 * `parts` with `chars` billed characters shared among them in proportion to what each speaks (a
 * part's chars are its share of the job's progress and price): an SSML document is billed as
 * written, its parts speak what say-as and phoneme content expand to.
 */
export function billedAs(parts: readonly TextPart[], chars: number): TextPart[] {
  const spoken = parts.reduce((n, p) => n + p.chars, 0);
  let before = 0;
  let billed = 0;
  return parts.map((p) => {
    before += p.chars;
    const upTo = spoken ? Math.round((before / spoken) * chars) : chars;
    const part = { ...p, chars: upTo - billed };
    billed = upTo;
    return part;
  });
}
