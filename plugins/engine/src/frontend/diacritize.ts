import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RunQueue, type RunLane } from '@sawt/core';
import { OnnxSession } from '@sawt/native';
import { hasRawSpan, mapTextParts, RAW_SPAN } from './raw.js';
import { rewriteTashkeelGraph, type GraphRewrite } from './tashkeel-graph.js';
import { correctDiacritics, type MarkedWord } from './diacritic-corrections.js';
import { pausalForm, type Dialect } from './dialects.js';

/** Rows (windows) per batched model run: larger batches pad more and hold more memory. */
const BATCH_ROWS = 32;
/**
 * Characters of a segment's preceding text (the same sentence, cut before it) read with it for
 * context: the words next to the cut get the case endings and readings the whole sentence gives.
 */
const CONTEXT_CHARS = 20;

/**
 * Arabic diacritization with the libtashkeel character model (ONNX, run off the
 * main thread through the native ONNX Runtime path).
 *
 * The model reads undiacritized letters and predicts one diacritic class per
 * character. Marks the user wrote are kept: a letter that carries a vowel keeps
 * exactly its marks, a letter with only a shadda gets the predicted vowel after
 * it, and only bare letters receive the predicted marks. Output marks are in
 * espeak-ng's order (shadda before the short vowel).
 */

/** Tanween, short vowels, shadda, sukun. */
export const HARAKAT = /[\u064b-\u0652]/u;
const HARAKAT_G = /[\u064b-\u0652]/gu;
/** Marks that give a letter its vowel (everything but shadda). */
const VOWEL_MARK = /[\u064b-\u0650\u0652]/u;
const SHADDA = '\u0651';
const ARABIC_LETTER = /[\u0621-\u064a\u0671]/u;

/** Around text the diacritizer must leave as written (lexicon replacements); removed by diacritize(). */
export const KEEP_START = '\ue002';
export const KEEP_END = '\ue003';
const KEEP_MARKS = /[\ue002\ue003]/gu;

export function removeKeepMarks(text: string): string {
  return text.replace(KEEP_MARKS, '');
}

export function stripDiacritics(text: string): string {
  return text.replace(HARAKAT_G, '');
}

/** Puts shadda first in every cluster of marks (espeak-ng drops the vowel otherwise). */
export function shaddaFirst(text: string): string {
  return text.replace(/([\u064b-\u0650\u0652]+)\u0651/gu, '\u0651$1');
}

/**
 * Tanween written on the alif (كتاباً, the common modern spelling) belongs to the letter before it
 * (كتابًا): that is where the model predicts it and where espeak-ng reads it (on the alif it reads
 * kita:ba:, and the model's own tanween on ب made it كِتَابًاً). A fatha already there gives way.
 */
export function tanweenBeforeAlif(text: string): string {
  return text.replace(/([\u0621-\u064a])([\u064b-\u0652]*)([اى])\u064b/gu, (_m, letter: string, marks: string, alif: string) =>
    `${letter}${shaddaFirst(marks.replace(/[\u064b-\u0650\u0652]/gu, '') + '\u064b')}${alif}`);
}

export interface DiacritizerFiles {
  model: string;
  inputMap: string;
  targetMap: string;
}

export interface DiacritizerOptions {
  executionProvider?: 'cpu' | 'cuda';
  /** Inferences running at once (the addon runs at most 2 ONNX runs at once, on niced threads of its own); default 2. */
  maxConcurrent?: number;
  /** Longest model input in characters; longer texts are cut at spaces. Default 400. */
  maxInputChars?: number;
  /** Diacritized texts (segments) kept for reuse, least recently used dropped first; 0: none. Default 1000. */
  cacheEntries?: number;
  /**
   * Load the model with its graph rewritten to the same computation in fewer operations
   * (tashkeel-graph.ts; the file is not changed). Default true; false loads the file as it is.
   */
  rewriteGraph?: boolean;
  /** The word corrections after the model (diacritic-corrections.ts). Default true; false: the model's marks as they are. */
  corrections?: boolean;
}

interface Letter {
  ch: string;
  marks: string;
  /** The marks were written by the user. */
  user?: boolean;
  /** Inside a KEEP span: fed to the model for context, never given marks. */
  keep: boolean;
}

function splitLetters(text: string): Letter[] {
  const out: Letter[] = [];
  let keep = false;
  for (const ch of text) {
    if (ch === KEEP_START || ch === KEEP_END) keep = ch === KEEP_START;
    else if (HARAKAT.test(ch) && out.length) {
      out[out.length - 1]!.marks += ch;
      out[out.length - 1]!.user = true;
    }
    else if (HARAKAT.test(ch)) out.push({ ch: '', marks: ch, keep });
    else out.push({ ch, marks: '', keep });
  }
  return out;
}

/**
 * A letter that still lacks its mark. Letters that stay bare in fully
 * diacritized text do not count: alef forms, a long vowel after its short
 * vowel, and the article's lam before a doubled (sun) letter.
 */
function needsMarks(letters: Letter[], i: number): boolean {
  const l = letters[i]!;
  if (l.keep || !ARABIC_LETTER.test(l.ch) || VOWEL_MARK.test(l.marks)) return false;
  if ('اآىٱ'.includes(l.ch)) return false;
  const prev = letters[i - 1]?.marks ?? '';
  if ((l.ch === 'و' && prev.includes('\u064f')) || (l.ch === 'ي' && prev.includes('\u0650'))) return false;
  if (l.ch === 'ل' && (letters[i + 1]?.marks ?? '').includes(SHADDA)) return false;
  return true;
}

/**
 * The article before hamzat al-wasl (الاقتصاد، الاستثمار، الاتفاق) joins it with a kasra on its
 * lam (الِاقْتِصَادُ: al-iqtiṣād), which the model leaves out. Recognized by the wasl's vowelless
 * next consonant (sukun or shadda); a lam the user marked is left as written.
 */
function articleBeforeWasl(letters: Letter[]): void {
  for (let i = 0; i + 3 < letters.length; i++) {
    const [a, l, w, c] = [letters[i]!, letters[i + 1]!, letters[i + 2]!, letters[i + 3]!];
    if (a.ch !== 'ا' || l.ch !== 'ل' || w.ch !== 'ا' || l.keep || VOWEL_MARK.test(l.marks.replace('\u0652', '')) || w.marks) continue;
    const start = letters[i - 1];
    const atWordStart = !start || !ARABIC_LETTER.test(start.ch) || ('وفبكل'.includes(start.ch) && !ARABIC_LETTER.test(letters[i - 2]?.ch ?? ''));
    if (atWordStart && ARABIC_LETTER.test(c.ch) && /[\u0651\u0652]/u.test(c.marks)) l.marks = '\u0650';
  }
}

/**
 * Two vowelless consonants do not meet across words: a final sukun before hamzat al-wasl (the
 * article, اِسْتَقْبَلَ…) becomes kasra, مِنْ before the article مِنَ (مِنِ الْ… is no Arabic), and
 * the plural's mīm its damma (هُمُ الْ، عَلَيْكُمُ الْ; Wright I §20).
 * Only the model's sukun is changed; the user's marks stay.
 */
function sukunBeforeWasl(letters: Letter[]): void {
  for (let i = 0; i + 3 < letters.length; i++) {
    const [last, space, alif, next] = [letters[i]!, letters[i + 1]!, letters[i + 2]!, letters[i + 3]!];
    if (space.ch !== ' ' || alif.ch !== 'ا' || alif.marks || last.keep || last.user || last.marks !== '\u0652' || !ARABIC_LETTER.test(next.ch)) continue;
    if (!ARABIC_LETTER.test(letters[i - 1]?.ch ?? '')) continue; // a one-letter word is a clitic, not a word
    const article = next.ch === 'ل';
    const min = last.ch === 'ن' && letters[i - 1]!.ch === 'م' && !ARABIC_LETTER.test(letters[i - 2]?.ch ?? '') && !ARABIC_LETTER.test(letters[i - 3]?.ch ?? '');
    // the plural's mīm (هُمْ، عَلَيْهِمْ، أَنْتُمْ، كُتُبُكُمْ) takes its original damma: عَلَيْهِمُ الْ، أَنْتُمُ الْ
    const pluralMim = last.ch === 'م' && 'هكت'.includes(letters[i - 1]!.ch) && /^\u0651?[\u064f\u0650]$/u.test(letters[i - 1]!.marks);
    last.marks = min && article ? '\u064e' : pluralMim ? '\u064f' : '\u0650';
  }
}

function merge(user: string, predicted: string): string {
  // A user's vowel stands; the model's shadda joins it when both agree on the vowel (people rarely write shadda: جداً).
  if (VOWEL_MARK.test(user)) return !user.includes(SHADDA) && predicted.includes(SHADDA) && predicted.replace(SHADDA, '') === user ? SHADDA + user : user;
  if (user.includes(SHADDA)) return SHADDA + predicted.replace(SHADDA, '');
  return predicted;
}

/**
 * The Arabic words of `letters` as the correction rules see them, with where each letter sits. A
 * word with a user's or the lexicon's marks is `fixed`.
 */
function markedWords(letters: Letter[]): { words: MarkedWord[]; at: number[][]; tail: string } {
  const words: MarkedWord[] = [];
  const at: number[][] = [];
  let between = '';
  let current: { word: MarkedWord; at: number[] } | null = null;
  letters.forEach((l, i) => {
    if (ARABIC_LETTER.test(l.ch)) {
      if (!current) {
        current = { word: { bare: '', marks: [], fixed: false, before: between }, at: [] };
        words.push(current.word);
        at.push(current.at);
        between = '';
      }
      current.word.bare += l.ch;
      current.word.marks.push(l.marks);
      current.word.fixed ||= l.keep || l.user === true;
      current.at.push(i);
    } else {
      current = null;
      between += l.ch;
    }
  });
  return { words, at, tail: between };
}

/** Word-level corrections (diacritic-corrections.ts), then the dialect's pausal reading, written back into `letters`. */
function correctWords(letters: Letter[], dialect: Dialect | undefined, corrections: boolean): void {
  const { words, at, tail } = markedWords(letters);
  if (corrections) correctDiacritics(words, tail);
  if (dialect?.colloquial) for (const w of words) if (!w.fixed) pausalForm(w);
  words.forEach((w, k) => {
    if (!w.fixed) at[k]!.forEach((i, j) => (letters[i]!.marks = w.marks[j]!));
  });
}

/** The rules applied to the model's marks, in place: word corrections, the dialect's reading, wasl. */
function fixMarks(letters: Letter[], dialect: Dialect | undefined, corrections: boolean): void {
  correctWords(letters, dialect, corrections);
  articleBeforeWasl(letters);
  sukunBeforeWasl(letters);
}

function joinLetters(letters: Letter[]): string {
  return letters.map((l) => l.ch + shaddaFirst(l.marks)).join('');
}

/** The last words of `before` (at most CONTEXT_CHARS characters, whole words), raw spans left out. */
function contextBefore(before: string): string {
  const text = before.replace(RAW_SPAN, ' ').trim();
  if (text.length <= CONTEXT_CHARS) return text;
  const tail = text.slice(-CONTEXT_CHARS);
  const space = tail.search(/\s/u);
  return space < 0 ? '' : tail.slice(space + 1);
}

/** Cuts `letters` into windows of at most `max`, at spaces where possible. */
function windows(letters: Letter[], max: number): Letter[][] {
  const out: Letter[][] = [];
  let start = 0;
  while (letters.length - start > max) {
    let cut = start + max;
    for (let i = cut; i > start + max / 2; i--) {
      if (letters[i]!.ch === ' ') {
        cut = i + 1;
        break;
      }
    }
    out.push(letters.slice(start, cut));
    start = cut;
  }
  out.push(letters.slice(start));
  return out;
}

export class Diacritizer {
  /** Model runs (maxConcurrent at once); waiting rows share a run, a request's first segment first. */
  private readonly runs: RunQueue<Letter[]>;
  private readonly cache: SegmentCache<string>;
  /**
   * The model's marks for each text read (with its context), whatever the dialect: the model reads
   * letters only, so one run serves every voice (the dialect changes only the rules after it), and
   * requests in flight with the same text share one run. Keyed by dialect alone, 8 requests of one
   * text on 8 voices cost 6 model runs instead of 1 (bench/latency.js, 8 streams on sawt-mini).
   */
  private readonly predicted: SegmentCache<Prediction>;
  /** Inference count and time, for logs and benchmarks. */
  readonly stats = { runs: 0, ms: 0 };
  /** What the load-time graph rewrite changed (zeros: the model runs as written). */
  graphRewrite = { sharedPositionBias: 0, einsumToMatMul: 0 };

  private constructor(
    private readonly session: OnnxSession,
    private readonly inputIds: Map<string, number>,
    private readonly targets: string[],
    private readonly options: Required<Omit<DiacritizerOptions, 'executionProvider' | 'rewriteGraph'>>,
  ) {
    this.cache = new SegmentCache(options.cacheEntries);
    this.predicted = new SegmentCache(options.cacheEntries);
    this.runs = new RunQueue(options.maxConcurrent, BATCH_ROWS, (rows, background) => this.runModel(rows, background));
  }

  /** Loads the model and its maps; paths are absolute or relative to `dir`. */
  static async load(dir: string, files: DiacritizerFiles, options: DiacritizerOptions = {}): Promise<Diacritizer> {
    const abs = (f: string) => path.resolve(dir, f);
    const [inputMap, targetMap] = await Promise.all([
      readFile(abs(files.inputMap), 'utf8').then((s) => JSON.parse(s) as Record<string, number>),
      readFile(abs(files.targetMap), 'utf8').then((s) => JSON.parse(s) as Record<string, number>),
    ]);
    const targets: string[] = [];
    for (const [marks, id] of Object.entries(targetMap)) targets[id] = marks === '_' ? '' : shaddaFirst(marks);
    let rewritten: GraphRewrite | null = null;
    if (options.rewriteGraph !== false) {
      try {
        const r = rewriteTashkeelGraph(await readFile(abs(files.model)));
        if (r.sharedPositionBias > 0 || r.einsumToMatMul > 0) rewritten = r;
      } catch {
        // Unreadable, or not the protobuf it expects: ONNX Runtime loads (or rejects) the file as before.
      }
    }
    const model = rewritten ? rewritten.bytes : abs(files.model);
    const session = await OnnxSession.create(model, { executionProvider: options.executionProvider ?? 'cpu', intraOpThreads: 1 });
    const names = session.inputNames;
    if (!names.includes('char_inputs') || !names.includes('input_lengths')) {
      session.release();
      throw new Error(`${files.model} is not a libtashkeel model (inputs: ${names.join(', ')})`);
    }
    const diacritizer = new Diacritizer(session, new Map(Object.entries(inputMap)), targets, {
      maxConcurrent: options.maxConcurrent ?? 2,
      maxInputChars: options.maxInputChars ?? 400,
      cacheEntries: options.cacheEntries ?? 1000,
      corrections: options.corrections ?? true,
    });
    if (rewritten) diacritizer.graphRewrite = { sharedPositionBias: rewritten.sharedPositionBias, einsumToMatMul: rewritten.einsumToMatMul };
    return diacritizer;
  }

  release(): void {
    this.session.release();
  }

  /**
   * Adds the missing diacritics to `text`; [[raw phoneme]] spans are left alone. `urgent`: the model
   * run goes ahead of waiting ones that are not (the first segment of a request); `background`:
   * nobody waits to hear it (a long-form job's), so it runs in RunQueue's background lane. `dialect`: a
   * colloquial dialect's words are read in pausal form (dialects.ts, pausalForm).
   */
  async diacritize(text: string, opts: { urgent?: boolean; background?: boolean; dialect?: Dialect; before?: string } = {}): Promise<string> {
    const dialect = opts.dialect?.colloquial ? opts.dialect : undefined;
    // (a text with raw spans is read without the context: its parts are read apart anyway)
    const context = opts.before && !hasRawSpan(text) ? contextBefore(opts.before) : '';
    const key = `${dialect ? dialect.name : ''}\u0000${context}\u0000${text}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const lane: RunLane = opts.urgent === true ? 'urgent' : opts.background === true ? 'background' : 'later';
    const out = await mapTextParts(text, (part) => this.diacritizePlain(tanweenBeforeAlif(part), lane, dialect, context));
    this.cache.set(key, out);
    return out;
  }

  /**
   * Several texts in one batched model run (padded); for benchmarks and bulk work. `continues[i]`:
   * text i is the rest of the sentence text i - 1 was cut from (segment.ts cuts a long sentence,
   * and a short first segment, at clause marks or between words); the two are then read together.
   */
  async diacritizeMany(texts: string[], opts: { dialect?: Dialect; continues?: boolean[] } = {}): Promise<string[]> {
    // Raw [[ ]] spans are set aside (as a KEEP span's placeholder) and put back after.
    const raws: string[][] = texts.map(() => []);
    const jobs = texts.map((t, i) =>
      splitLetters(tanweenBeforeAlif(t).replace(RAW_SPAN, (m) => {
        raws[i]!.push(m);
        return `${KEEP_START}\ue004${KEEP_END}`;
      })),
    );
    // Segments cut out of one sentence are read as the sentence they came from: the model sees the
    // words on both sides of the cut, and the word rules see the whole clause.
    const sentences: Letter[][] = [];
    jobs.forEach((letters, i) => {
      if (i > 0 && opts.continues?.[i] === true) sentences[sentences.length - 1]!.push({ ch: ' ', marks: '', keep: false }, ...letters);
      else sentences.push([...letters]);
    });
    const rows = sentences.flatMap((letters) => windows(letters, this.options.maxInputChars));
    // Letters that need nothing are not sent (fully diacritized or non-Arabic texts)
    // sorted by length, so each batch pads its rows little
    const needed = rows.filter((row) => row.some((_, k) => needsMarks(row, k))).sort((a, b) => a.length - b.length);
    const batches: Letter[][][] = [];
    for (let k = 0; k < needed.length; k += BATCH_ROWS) batches.push(needed.slice(k, k + BATCH_ROWS));
    await Promise.all(batches.map((b) => this.predict(b))); // at most maxConcurrent at once
    for (const letters of sentences) fixMarks(letters, opts.dialect, this.options.corrections);
    return jobs.map((letters, i) => {
      let n = 0;
      return joinLetters(letters).replace(/\ue004/gu, () => raws[i]![n++]!);
    });
  }

  /**
   * `context`: the text before `text` in its sentence; the model and the word rules read both, and
   * only `text`'s letters are returned.
   */
  private async diacritizePlain(text: string, lane: RunLane, dialect?: Dialect, context = ''): Promise<string> {
    const own = splitLetters(text);
    if (!own.some((l, i) => needsMarks(own, i))) return this.render(own, own, dialect);
    const letters = context ? [...splitLetters(tanweenBeforeAlif(context)), { ch: ' ', marks: '', keep: false }, ...own] : own;
    const key = `${context}\u0000${text}`;
    let prediction = this.predicted.get(key);
    // A live request does not wait for a background run of the same text in flight (it runs at a lower priority).
    if (!prediction || (!prediction.done && prediction.background && lane !== 'background')) {
      const run = letters.map((l) => ({ ...l }));
      const p: Prediction = {
        background: lane === 'background', done: false,
        marks: this.predict(windows(run, this.options.maxInputChars), lane).then(() => run.map((l) => l.marks)),
      };
      p.marks.then(() => (p.done = true), () => this.predicted.delete(key, p));
      this.predicted.set(key, (prediction = p));
    }
    const marks = await prediction.marks;
    letters.forEach((l, i) => (l.marks = marks[i]!));
    return this.render(letters, own, dialect);
  }

  /** The rules over `letters` (context and text), then the text's own letters (`own`, a tail of `letters`). */
  private render(letters: Letter[], own: Letter[], dialect?: Dialect): string {
    fixMarks(letters, dialect, this.options.corrections);
    return joinLetters(own);
  }

  /** Runs the model over rows (alone or in a run shared with other waiting rows) and merges its marks into the letters. */
  private async predict(rows: Letter[][], lane: RunLane = 'later'): Promise<void> {
    if (rows.every((r) => !r.some((l) => ARABIC_LETTER.test(l.ch) && this.inputIds.has(l.ch)))) return;
    await this.runs.submit(rows, lane);
  }

  /** One model run over rows (one batch, padded with id 0). */
  private async runModel(rows: Letter[][], background = false): Promise<void> {
    const fed = rows.map((row) => row.filter((l) => this.inputIds.has(l.ch)));
    const width = Math.max(1, ...fed.map((r) => r.length));
    const ids = new BigInt64Array(fed.length * width);
    fed.forEach((r, i) => r.forEach((l, k) => (ids[i * width + k] = BigInt(this.inputIds.get(l.ch)!))));
    const lengths = BigInt64Array.from(fed.map((r) => BigInt(Math.max(1, r.length))));
    const started = performance.now();
    try {
      const out = await this.session.run(
        { char_inputs: { type: 'int64', dims: [fed.length, width], data: ids }, input_lengths: { type: 'int64', dims: [fed.length], data: lengths } },
        ['output'],
        { background },
      );
      const classes = out.output!.data as Uint8Array;
      fed.forEach((r, i) =>
        r.forEach((l, k) => {
          if (l.keep || !ARABIC_LETTER.test(l.ch)) return;
          l.marks = merge(l.marks, this.targets[classes[i * width + k]!] ?? '');
        }),
      );
    } finally {
      this.stats.runs++;
      this.stats.ms += performance.now() - started;
    }
  }
}

/** A model run's marks for one text (a letter's marks each), shared while in flight and after. */
interface Prediction {
  marks: Promise<string[]>;
  background: boolean;
  done: boolean;
}

/** A bounded map of texts to what was computed for them; the least recently used entry goes first. */
class SegmentCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(text: string): V | undefined {
    const out = this.entries.get(text);
    if (out === undefined) return undefined;
    this.entries.delete(text);
    this.entries.set(text, out);
    return out;
  }

  set(text: string, out: V): void {
    if (this.max <= 0) return;
    this.entries.delete(text);
    this.entries.set(text, out);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Removes the entry of `text` (only while it is still `value`, when given). */
  delete(text: string, value?: V): void {
    if (value === undefined || this.entries.get(text) === value) this.entries.delete(text);
  }
}
