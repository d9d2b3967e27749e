// The label front end reproduces Festival's golden labels field by field, from the .norm files.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { GOLDEN, ENGINE } from './helpers.js';

const { textToLabels, wordPhones, FESTIVAL_LABEL_OPTIONS, DEFAULT_LABEL_OPTIONS } = await import(ENGINE);

const FIELDS = /^(.*?)\^(.*?)-(.*?)\+(.*?)=(.*?)@(.*?)_(.*?)\/A:(.*?)_(.*?)_(.*?)\/B:(.*?)-(.*?)-(.*?)@(.*?)-(.*?)&(.*?)-(.*?)#(.*?)-(.*?)\$(.*?)-(.*?)!(.*?)-(.*?);(.*?)-(.*?)\|(.*?)\/C:(.*?)\+(.*?)\+(.*?)\/D:(.*?)_(.*?)\/E:(.*?)\+(.*?)@(.*?)\+(.*?)&(.*?)\+(.*?)#(.*?)\+(.*?)\/F:(.*?)_(.*?)\/G:(.*?)_(.*?)\/H:(.*?)=(.*?)@(.*?)=(.*?)\|(.*?)\/I:(.*?)=(.*?)\/J:(.*?)\+(.*?)-(.*?)$/;
const NAMES = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8', 'b9', 'b10', 'b11', 'b12', 'b13', 'b14', 'b15', 'b16', 'c1', 'c2', 'c3', 'd1', 'd2', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'f1', 'f2', 'g1', 'g2', 'h1', 'h2', 'h3', 'h4', 'h5', 'i1', 'i2', 'j1', 'j2', 'j3'];
// Quinphone fields first (phone names may contain ^), then the rest by the fixed separators.
function fields(label) {
  const m = FIELDS.exec(label);
  if (!m) return null;
  return Object.fromEntries(NAMES.map((n, i) => [n, m[i + 1]]));
}

if (!existsSync(GOLDEN)) {
  t.skip(`golden labels not found at ${GOLDEN}`);
} else {
  const norms = readdirSync(GOLDEN).filter((f) => f.endsWith('.norm')).sort();
  t.ok(norms.length >= 4, 'golden inputs present');
  for (const norm of norms) {
    t.test(`golden ${norm}`, async (t) => {
      const stem = norm.replace(/\.norm$/, '');
      const labs = readdirSync(GOLDEN).filter((f) => f.startsWith(stem + '.') && f.endsWith('.lab')).sort();
      const got = textToLabels(readFileSync(path.join(GOLDEN, norm), 'utf8'), FESTIVAL_LABEL_OPTIONS);
      t.equal(got.length, labs.length, 'utterance count');
      labs.forEach((lab, u) => {
        const want = readFileSync(path.join(GOLDEN, lab), 'utf8').trim().split('\n').map((l) => l.trim().split(/\s+/)[2]);
        const mine = got[u] ?? [];
        t.equal(mine.length, want.length, `${lab}: label count`);
        let bad = 0;
        for (let i = 0; i < want.length; i++) {
          const w = fields(want[i]), g = mine[i] === undefined ? null : fields(mine[i]);
          t.ok(w, `golden label ${i} parses`);
          if (!g) { bad++; t.fail(`${lab}:${i + 1} missing or unparsable: ${mine[i]}`); continue; }
          for (const n of NAMES) if (w[n] !== g[n]) { bad++; t.fail(`${lab}:${i + 1} field ${n}: got ${g[n]}, want ${w[n]} (${want[i]})`); }
          if (bad > 20) break;
        }
        t.equal(bad, 0, `${lab}: every field matches`);
        t.equal(mine.join('\n'), want.join('\n'), `${lab}: byte for byte`);
      });
    });
  }
  t.test('improvements change the labels where they should', async (t) => {
    const s1 = readFileSync(path.join(GOLDEN, 's1_d.norm'), 'utf8');
    const base = textToLabels(s1, FESTIVAL_LABEL_OPTIONS)[0].join('\n');
    const allah = textToLabels(s1, { ...FESTIVAL_LABEL_OPTIONS, allahLongVowel: true })[0].join('\n');
    t.match(allah, /-ll\+aa=h/, 'Allah has its long aa');
    t.notMatch(base, /-ll\+aa=h/);
    const wasl = textToLabels(s1, { ...FESTIVAL_LABEL_OPTIONS, waslElision: true })[0];
    t.ok(wasl.length < base.split('\n').length, 'hamzat al-wasl inside the phrase is not voiced');
    t.match(wasl.join('\n'), /^x\^x-pau\+ah=a/, 'phrase-initial article keeps its hamza');
    const punct = textToLabels('قَالَ، ثُمَّ ذَهَبَ', { ...FESTIVAL_LABEL_OPTIONS, arabicPunctuation: true })[0];
    t.equal(punct.filter((l) => /-pau\+/.test(l)).length, 3, 'Arabic comma is a phrase break');
    t.equal(textToLabels('قَالَ، ثُمَّ ذَهَبَ', FESTIVAL_LABEL_OPTIONS)[0].filter((l) => /-pau\+/.test(l)).length, 2);
    t.equal(textToLabels('قَالَ… ثُمَّ ذَهَبَ', DEFAULT_LABEL_OPTIONS)[0].filter((l) => /-pau\+/.test(l)).length, 3, 'an ellipsis is a pause');
    t.equal(textToLabels('ذَهَبَ. ثُمَّ عَادَ؟ نَعَمْ', DEFAULT_LABEL_OPTIONS).length, 3, 'sentence splitting');
  });

  t.test('hamzat al-wasl beyond the article, and the long vowel of اللهم', async (t) => {
    const inside = { phraseInitial: false, opts: DEFAULT_LABEL_OPTIONS };
    const initial = { phraseInitial: true, opts: DEFAULT_LABEL_OPTIONS };
    const festival = { phraseInitial: false, opts: FESTIVAL_LABEL_OPTIONS };
    const say = (w, ctx) => wordPhones(w, ctx).phones.join(' ');
    t.equal(say('ابْنُ', inside), 'b n u', 'ابن inside a phrase: no glottal stop');
    t.equal(say('ابْنُ', initial), 'ah i b n u', 'phrase-initially with i');
    t.equal(say('ابْنُ', festival), 'ah a b n u', "Festival's reading");
    t.equal(say('اشْتَرَى', inside), 'ch t a r aa', 'form VIII');
    t.equal(say('اسْتَخْدَمَ', initial), 'ah i s t a x d a m a', 'form X, phrase-initial');
    t.equal(say('اثْنَانِ', inside), '^ n aa n i');
    t.equal(say('فَاسْتَمَعَ', inside), 'f a s t a m a E a', 'after a clitic the alif is silent, not a long aa');
    t.equal(say('فَاسْتَمَعَ', festival), 'f aa s t a m a E a');
    // A hamzat al-qat' written without its hamza keeps its glottal stop.
    for (const w of ['احْمَدُ', 'اكْثَرُ', 'انْتَ', 'انْتُمْ', 'انْسَانٌ', 'اسْتَاذٌ']) t.match(say(w, inside), /^ah a /, `${w} keeps its hamza`);
    t.equal(say('اللَّهُمَّ', inside), 'll aa h u mm a', 'اللهم: long aa');
    t.equal(say('اللَّهُمَّ', festival), 'ah a ll a h u mm a');
  });
}

t.test('issue 16: the plural و\'s silent alif, and Festival\'s addenda after clitics', async (t) => {
  const { wordPhones, DEFAULT_LABEL_OPTIONS } = await import('../../plugins/engine/dist/index.js');
  const phones = (w) => wordPhones(w, { phraseInitial: false, opts: DEFAULT_LABEL_OPTIONS }).phones.join(' ');
  t.equal(phones('تَأَخَّرُوا'), 't a ah a xx a r uu', 'تأخروا ends in uu, no w aa');
  t.equal(phones('كَتَبُوا'), 'k a t a b uu');
  t.equal(phones('دَعَوْا'), 'd a E a w', 'after fatha + sukun too');
  t.equal(phones('دَعَوَا'), 'd a E a w aa', 'the dual keeps its alif');
  t.equal(phones('وَهَذَا'), 'w a h aa th aa');
  t.equal(phones('لِذَلِكَ'), 'l i th aa l i k a');
  t.equal(phones('بِهَذِهِ'), 'b i h aa th i h i');
  t.equal(phones('وَلَكِنَّ'), 'w a l aa k i nn a', 'ولكن is و + لكن');
});

t.test('issue 16: the article joined to hamzat al-wasl (الِاقْتِصَادُ) is a l i, its alif silent', async (t) => {
  const { wordPhones, DEFAULT_LABEL_OPTIONS } = await import('../../plugins/engine/dist/index.js');
  const phones = (w, phraseInitial) => wordPhones(w, { phraseInitial, opts: DEFAULT_LABEL_OPTIONS }).phones.join(' ');
  t.equal(phones('الِاقْتِصَادُ', true), 'ah a l i q t I S aa d u');
  t.equal(phones('الِاقْتِصَادُ', false), 'l i q t I S aa d u');
  t.equal(phones('وَالِاسْتِثْمَارِ', false), 'w a l i s t i ^ m aa r i');
  t.equal(phones('الْكِتَابُ', true), 'ah a l k i t aa b u', 'the article before other words unchanged');
});
