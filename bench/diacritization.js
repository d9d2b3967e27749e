// Diacritization error rates of the libtashkeel model on fully diacritized MSA
// sentences (test/frontend/diacritization-sentences.txt): marks are stripped,
// the text is diacritized again and compared with the original.
//   DER: Arabic letters whose marks differ / Arabic letters (all; and without
//        each word's last letter, i.e. ignoring case endings)
//   WER: words with at least one letter wrong / words (same two variants)
// The same figures without the word corrections (diacritic-corrections.ts) show what they change.
// Usage: npm run bench:diacritization [-- --models DIR] [--show] [--file FILE]
// DIR defaults to SAWT_MODELS_DIR, else the bundled models/.
import { readFileSync } from 'node:fs';
import { writeResults } from './harness.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { models: { type: 'string' }, show: { type: 'boolean' }, file: { type: 'string' } } });
const modelsDir = path.resolve(values.models ?? process.env.SAWT_MODELS_DIR ?? path.join(root, 'models'));
const file = values.file ?? path.join(root, 'test/frontend/diacritization-sentences.txt');
const { Diacritizer, stripDiacritics, shaddaFirst } = await import(path.join(root, 'plugins/engine/dist/index.js'));

const LETTER = /[\u0621-\u064a\u0671]/u;
const MARK = /[\u064b-\u0652]/u;

/** Words as arrays of { ch, marks } for the Arabic letters only (marks sorted). */
function words(text) {
  return text.split(/\s+/u).filter(Boolean).map((w) => {
    const out = [];
    for (const ch of w) {
      if (MARK.test(ch)) { if (out.length) out[out.length - 1].marks.push(ch); }
      else if (LETTER.test(ch)) out.push({ ch, marks: [] });
    }
    return out.map((l) => ({ ch: l.ch, marks: l.marks.sort().join('') }));
  }).filter((w) => w.length);
}

const sentences = readFileSync(file, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean);
const files = { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' };
const diacritizer = await Diacritizer.load(modelsDir, files);
const started = performance.now();
const predicted = [];
for (const s of sentences) predicted.push(await diacritizer.diacritize(stripDiacritics(s)));
const elapsed = performance.now() - started;
const plain = await Diacritizer.load(modelsDir, files, { corrections: false });
const uncorrected = await plain.diacritizeMany(sentences.map(stripDiacritics));
plain.release();

const { c, mistakes } = score(predicted);
const before = score(uncorrected).c;

function score(predicted) {
  const c = { letters: 0, letterErr: 0, lettersNoLast: 0, letterErrNoLast: 0, words: 0, wordErr: 0, wordErrNoLast: 0 };
  const mistakes = [];
  sentences.forEach((gold, i) => {
    const g = words(shaddaFirst(gold));
    const p = words(predicted[i]);
    if (g.length !== p.length) throw new Error(`sentence ${i + 1}: word count changed`);
    g.forEach((gw, j) => {
      const pw = p[j];
      let wrong = false, wrongNoLast = false;
      gw.forEach((gl, k) => {
        const bad = gl.marks !== pw[k].marks;
        c.letters++; c.letterErr += bad;
        if (k < gw.length - 1) { c.lettersNoLast++; c.letterErrNoLast += bad; wrongNoLast ||= bad; }
        wrong ||= bad;
      });
      c.words++; c.wordErr += wrong; c.wordErrNoLast += wrongNoLast;
      if (wrong) mistakes.push(`${i + 1}: ${sentences[i].split(/\s+/u)[j]} → ${predicted[i].split(/\s+/u)[j]}`);
    });
  });
  return { c, mistakes };
}
const pct = (a, b) => Number(((100 * a) / b).toFixed(2));
const result = {
  sentences: sentences.length, words: c.words, letters: c.letters,
  der_percent: pct(c.letterErr, c.letters),
  der_no_last_letter_percent: pct(c.letterErrNoLast, c.lettersNoLast),
  wer_percent: pct(c.wordErr, c.words),
  wer_no_last_letter_percent: pct(c.wordErrNoLast, c.words),
  der_without_corrections_percent: pct(before.letterErr, before.letters),
  der_no_last_letter_without_corrections_percent: pct(before.letterErrNoLast, before.lettersNoLast),
  ms_per_sentence: Number((elapsed / sentences.length).toFixed(2)),
};
diacritizer.release();
if (values.show) console.log(mistakes.join('\n'));
writeResults('diacritization', { date: new Date().toISOString(), ...result });
