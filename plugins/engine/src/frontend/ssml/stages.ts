/**
 * A front-end stage over texts as the engine reads a request (`sawt text … --ssml | --dictionary`):
 * each text becomes its SpeechDocument (SSML or plain text, the dictionaries' rules applied), the
 * stage runs on every spoken step, and the output shows the steps in order, the markup that
 * survives as markup: pauses as <break time="…ms"/>, marks as <mark name="…"/>, a step's
 * non-neutral prosody or language as <prosody …>…</prosody> and <lang xml:lang="…">…</lang>.
 */
import type { PronunciationRule } from '@sawt/core';
import { speechSteps, type SpeechStep } from './document.js';
import { parseSpeechText, type TextType } from './parse.js';
import { applyPronunciations, PronunciationMatcher } from './pronunciations.js';

export interface MarkupStageOptions {
  textType?: TextType;
  rules?: readonly PronunciationRule[];
}

/** Whether a stage run asks for the request reading (text_type or dictionary rules). */
export function readsMarkup(opts: MarkupStageOptions): boolean {
  return opts.textType === 'ssml' || (opts.rules?.length ?? 0) > 0;
}

/**
 * The steps of one text as the engine would read it (400 / 40001 for bad markup or an unusable rule),
 * a speak step's marks shown where they fall: the step cut before each mark's word (the engine
 * keeps the step whole and times the mark at that word; a stage's output has words of its own).
 */
export function textSteps(text: string, opts: MarkupStageOptions, matcher: PronunciationMatcher | null): SpeechStep[] {
  const parsed = parseSpeechText(text, opts.textType ? { textType: opts.textType } : {});
  return speechSteps(matcher ? applyPronunciations(parsed, matcher) : parsed).flatMap(atMarks);
}

function atMarks(step: SpeechStep): SpeechStep[] {
  if (step.kind !== 'speak' || !step.marks?.length) return [step];
  const { marks, ...speak } = step;
  const words = speak.text.split(/\s+/u);
  const out: SpeechStep[] = [];
  let from = 0;
  for (const mark of marks) {
    if (mark.words > from) out.push({ ...speak, text: words.slice(from, mark.words).join(' ') });
    out.push({ kind: 'mark', name: mark.name });
    from = Math.max(from, mark.words);
  }
  if (from < words.length) out.push({ ...speak, text: words.slice(from).join(' ') });
  return out;
}

const attr = (s: string) => s.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;');
const signed = (n: number, unit: string) => `${n > 0 ? '+' : ''}${Math.round(n * 100) / 100}${unit}`;

/** A speak step's output, wrapped in the prosody and language it is read with (none when neutral). */
function wrap(step: Extract<SpeechStep, { kind: 'speak' }>, output: string): string {
  const p = step.prosody;
  const attrs = [
    p.rate !== 1 ? `rate="${Math.round(p.rate * 1000) / 10}%"` : '',
    p.pitchSemitones !== 0 ? `pitch="${signed(p.pitchSemitones, 'st')}"` : '',
    p.volumeDb === null ? 'volume="silent"' : p.volumeDb !== 0 ? `volume="${signed(p.volumeDb, 'dB')}"` : '',
  ].filter(Boolean);
  let out = attrs.length ? `<prosody ${attrs.join(' ')}>${output}</prosody>` : output;
  if (step.lang && !/^ar\b/iu.test(step.lang)) out = `<lang xml:lang="${attr(step.lang)}">${out}</lang>`;
  return out;
}

/** The steps rendered with each speak step's stage output (`outputs`, in order of the speak steps). */
export function renderSteps(steps: readonly SpeechStep[], outputs: readonly string[]): string {
  let k = 0;
  return steps.map((step) => {
    if (step.kind === 'speak') return wrap(step, outputs[k++]!.trim());
    if (step.kind === 'pause') return `<break time="${step.ms}ms"/>`;
    return `<mark name="${attr(step.name)}"/>`;
  }).join(' ');
}

/**
 * `stage` over `texts` read as requests: `runPlain` runs the stage on plain texts (batched: every
 * spoken step of every text in one call). A text that fails to parse fails the call (400 / 40001
 * with its line:column).
 */
export async function runStageOverSteps(texts: readonly string[], opts: MarkupStageOptions, runPlain: (texts: string[]) => Promise<string[]>): Promise<string[]> {
  const matcher = opts.rules?.length ? new PronunciationMatcher(opts.rules) : null;
  const all = texts.map((text) => (text.trim() ? textSteps(text, opts, matcher) : []));
  const spoken = all.flatMap((steps) => steps.flatMap((s) => (s.kind === 'speak' ? [s.text] : [])));
  const outputs = spoken.length ? await runPlain(spoken) : [];
  let at = 0;
  return all.map((steps) => {
    const n = steps.filter((s) => s.kind === 'speak').length;
    const mine = outputs.slice(at, at + n);
    at += n;
    return renderSteps(steps, mine);
  });
}
