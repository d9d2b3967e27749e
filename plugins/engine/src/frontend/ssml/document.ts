/**
 * What a request's text says once its markup is read: spoken runs (each with what the front end
 * reads, what is billed, its source span and its prosody), pauses, marks and sentence or
 * paragraph ends, in order. SSML and plain text (whose only markup is <break time="…"/>) both
 * become one; the engine reads the document, billing counts its spoken characters.
 */
import { billableChars } from '@sawt/core';
import type { SourcePoint } from './xml.js';
import type { EmphasisLevel, Prosody } from './prosody.js';

export interface SourceSpan {
  /** Offsets (UTF-16 code units) in the request's text, end exclusive. */
  start: number;
  end: number;
  /** Line and column (1-based) of `start`. */
  line: number;
  column: number;
}

export type RunOrigin = 'text' | 'say-as' | 'sub' | 'phoneme';

export interface SpokenRun {
  kind: 'speech';
  /**
   * What the front end reads (normalizer input): text as written, a say-as read out, a sub's
   * alias, a phoneme element as an x-sawt passage `[[…]]`. Pronunciation rules rewrite it.
   */
  text: string;
  /** What billing counts: the text as written (say-as, phoneme) or as spoken (sub and dictionary aliases). */
  spoken: string;
  origin: RunOrigin;
  source: SourceSpan;
  prosody: Prosody;
  /** The innermost <emphasis> level (already folded into `prosody`), null outside one. */
  emphasis: EmphasisLevel | null;
  /** xml:lang of the innermost <lang>, <p>, <s> or <speak> that gives one; null: the voice's language. */
  lang: string | null;
}

export interface PauseItem {
  kind: 'break';
  ms: number;
  source: SourceSpan;
}

export interface MarkItem {
  kind: 'mark';
  name: string;
  source: SourceSpan;
}

export interface BoundaryItem {
  kind: 'boundary';
  level: 'sentence' | 'paragraph';
  source: SourceSpan;
}

export type SpeechItem = SpokenRun | PauseItem | MarkItem | BoundaryItem;

export interface SpeechDocument {
  /** 'ssml': the text was an SSML document; 'plain': plain text (breaks are its only markup). */
  markup: 'ssml' | 'plain';
  /** The document's language (xml:lang of <speak>), null when not given. */
  lang: string | null;
  items: SpeechItem[];
}

export function spanOf(at: SourcePoint, end: number): SourceSpan {
  return { start: at.offset, end, line: at.line, column: at.column };
}

export const where = (s: Pick<SourceSpan, 'line' | 'column'>) => `${s.line}:${s.column}`;

/**
 * The billed text of a document: the spoken characters (text content, say-as and phoneme
 * content as written, sub and dictionary aliases as spoken), never markup. Runs join as written;
 * a pause, mark or sentence end between runs counts as one space (with the white space around it). SSML's white space is collapsed
 * (XML does not keep it); plain text keeps its own, so a plain text without <break> bills exactly
 * as before (its trimmed text). core's billableChars and the 3-word/10-character rule apply to it.
 */
export function ssmlBillableText(doc: SpeechDocument): string {
  let out = '';
  let gap = false;
  for (const item of doc.items) {
    if (item.kind !== 'speech') {
      gap = true;
      continue;
    }
    let spoken = item.spoken;
    if (gap && out !== '') {
      // The white space around a pause or mark is one space, however it was written.
      spoken = spoken.trimStart();
      if (spoken === '') continue;
      out = `${out.trimEnd()} `;
    }
    out += spoken;
    gap = false;
  }
  return doc.markup === 'ssml' ? out.replace(/\s+/gu, ' ').trim() : out.trim();
}

/** The billable character count of a document (billableChars of ssmlBillableText). */
export function ssmlBillableChars(doc: SpeechDocument): number {
  return billableChars(ssmlBillableText(doc));
}

/** One step of reading a document: speak a text with its voice settings, pause, or reach a mark. */
export type SpeechStep =
  | {
    kind: 'speak'; text: string; prosody: Prosody; emphasis: EmphasisLevel | null; lang: string | null; source: SourceSpan;
    /** Marks inside the text: each before the word at index `words` (the words before it), so that a mark never cuts the speech. */
    marks?: Array<{ name: string; words: number }>;
  }
  | { kind: 'pause'; ms: number }
  | { kind: 'mark'; name: string };

/** Arabic (or the voice's own language): read by the same rules, whatever the tag says. */
const arabic = (lang: string | null) => lang === null || /^ar(?:-|$)/iu.test(lang);

/** Runs read alike: the same prosody (emphasis is folded into it) and the same reading rules. */
const sameVoice = (a: { prosody: Prosody; lang: string | null }, b: SpokenRun) =>
  (a.lang === b.lang || (arabic(a.lang) && arabic(b.lang))) && a.prosody.rate === b.prosody.rate && a.prosody.pitchSemitones === b.prosody.pitchSemitones && a.prosody.volumeDb === b.prosody.volumeDb;

/**
 * The document as steps for a back end: consecutive runs with the same prosody and reading rules
 * (Arabic, or one other language) become one `speak` (so the front end sees whole sentences), a sentence or paragraph
 * end closes the text with a full stop when it has none, consecutive pauses add up, and runs of
 * white space alone only separate words.
 */
export function speechSteps(doc: SpeechDocument): SpeechStep[] {
  const steps: SpeechStep[] = [];
  let current: Extract<SpeechStep, { kind: 'speak' }> | null = null;
  const close = () => {
    if (current) {
      current.text = current.text.replace(/\s+/gu, ' ').trim();
      if (current.text) steps.push(current);
    }
    current = null;
  };
  for (const item of doc.items) {
    if (item.kind === 'speech') {
      if (current && (sameVoice(current, item) || item.text.trim() === '')) {
        current.text += item.text;
        current.source = { ...current.source, end: item.source.end };
      } else if (item.text.trim() !== '') {
        close();
        current = { kind: 'speak', text: item.text, prosody: item.prosody, emphasis: item.emphasis, lang: item.lang, source: item.source };
      }
      continue;
    }
    if (item.kind === 'boundary') {
      if (current && !/[.!?؟…:;؛]\s*$/u.test(current.text) && current.text.trim()) current.text = `${current.text.trimEnd()}.`;
      close();
      continue;
    }
    // A mark within spoken text stays in it (placed by its words): cutting the speech there would
    // end an utterance, with its pause and final fall (espeak-ng added half a second).
    if (item.kind === 'mark' && current?.text.trim()) {
      (current.marks ??= []).push({ name: item.name, words: current.text.trim().split(/\s+/u).length });
      continue;
    }
    close();
    const last = steps[steps.length - 1];
    if (item.kind === 'break') {
      if (last?.kind === 'pause') last.ms += item.ms;
      else if (item.ms > 0) steps.push({ kind: 'pause', ms: item.ms });
    } else steps.push({ kind: 'mark', name: item.name });
  }
  close();
  return steps;
}
