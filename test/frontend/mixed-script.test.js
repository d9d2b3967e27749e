// Latin script inside Arabic text: each case of mixed-script-cases.json gives a Latin token (with
// the Arabic clitics glued to it or before it, and sometimes diacritized Arabic around it) and the
// phones each voice must say: espeak-ng Arabic mnemonics for sawt-mini (the Latin stage's [[ ]]
// spans, Arabic readings phonemized as the engine does) and the HTS voice's phone names (labels).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { LatinReader, EngineTextPipeline, textToLabels } from '../../plugins/engine/dist/index.js';
import { phonemize } from '@sawt/native';
import { splitRaw } from '../../plugins/engine/dist/frontend/raw.js';
import { spellForEspeak } from '../../plugins/engine/dist/frontend/espeak-spelling.js';

/** Every segment of a text through the whole front end (the first part, then the rest), as `{ segments }`. */
async function segmentsOf(fe, input) {
  const { first, rest } = await fe.processInParts(input);
  return { segments: [...(await first), ...(rest ? await rest : [])] };
}

const cases = JSON.parse(readFileSync(new URL('./mixed-script-cases.json', import.meta.url), 'utf8'));
const readers = { arabic: new LatinReader(), english: new LatinReader({ letterNames: 'english' }) };

async function espeakPhones(text) {
  const out = [];
  for (const p of splitRaw(await spellForEspeak(text))) out.push(p.raw ? p.text.slice(2, -2) : p.text.trim() ? await phonemize(p.text.trim(), 'ar', 'espeak') : '');
  return out.filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}
const htsPhones = (text) => textToLabels(text).map((u) => u.map((l) => /-(.+?)\+/.exec(l)[1]).filter((p) => p !== 'pau').join(' ')).join(' ');

t.test('mixed-script table: phones for both voices', async (t) => {
  t.ok(cases.length >= 60, `${cases.length} cases`);
  for (const c of cases) {
    const reader = readers[c.letterNames ?? 'arabic'];
    t.equal(await espeakPhones(await reader.read(c.input, 'espeak')), c.espeak, `espeak: ${c.input}`);
    t.equal(htsPhones(await reader.read(c.input, 'hts')), c.hts, `hts: ${c.input}`);
  }
});

t.test('no Latin letter reaches either voice, and Arabic around it is kept', async (t) => {
  const pipeline = new EngineTextPipeline({ diacritizer: null, dialects: new Map() });
  const text = 'حملت تطبيق WhatsApp على iPhone من شركة Apple، ونظام GPS يعمل مع الـAI بـGoogle.';
  for (const phonemes of ['espeak', 'hts']) {
    const { segments } = await segmentsOf(pipeline.frontEnd, { text, dialect: null, diacritize: false, phonemes });
    const joined = segments.join(' ');
    t.notMatch(joined.replace(/\[\[[\s\S]*?\]\]|\ue010[^\ue011]*\ue011/gu, ''), /[A-Za-z]/u, `${phonemes}: no Latin letters outside phone spans`);
    t.match(joined, /حملت تطبيق/u, `${phonemes}: Arabic kept`);
  }
  const [labels] = textToLabels((await segmentsOf(pipeline.frontEnd, { text: 'استخدم الـAI اليوم', dialect: null, diacritize: false, phonemes: 'hts' })).segments[0]);
  const phones = labels.map((l) => /-(.+?)\+/.exec(l)[1]);
  t.ok(phones.join(' ').includes('ah ii h ah aa y'), `AI spelled with Arabic letter names in the HTS labels: ${phones.join(' ')}`);
});

t.test('operator entries win over the built-in list and take English respellings', async (t) => {
  const reader = new LatinReader({ lexicon: { Sawt: 'صَوْت', Nike: 'nigh key' } });
  t.equal(await reader.read('Sawt', 'hts'), 'صَوْتْ');
  t.equal(await reader.read('Nike', 'espeak'), "[[n'aj]] [[k'i:]]");
});
