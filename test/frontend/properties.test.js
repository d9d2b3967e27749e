// Property tests over the text front end: for any input string (random Unicode, and text built
// from the pieces real Arabic content mixes: digits of three scripts, money, dates, Latin words,
// acronyms, emoji, marks, [[ ]] spans) nothing throws, the normalizer leaves nothing unread
// (no digit, no currency sign, no %), segmentation loses no letter or digit, and the HTS labels
// use only the voice's phone set.
import t from 'tap';
import fc from 'fast-check';
import { normalizeArabic } from '../../plugins/engine/dist/frontend/normalize/index.js';
import { segmentText, textToLabels, LatinReader, EngineTextPipeline } from '../../plugins/engine/dist/index.js';

/** Every segment of a text through the whole front end (the first part, then the rest), as `{ segments }`. */
async function segmentsOf(fe, input) {
  const { first, rest } = await fe.processInParts(input);
  return { segments: [...(await first), ...(rest ? await rest : [])] };
}

const PIECES = [
  'مرحبا', 'كتاباً', 'الـ', 'بـ', 'و', 'في', 'عام', 'القرن', 'د.', 'أ.د.', 'ريال', 'دولار', 'يستغرق', 'الإجراء', 'من', 'إلى', 'يناير', 'رمضان', 'هـ', 'م',
  '$', '€', '£', '¥', '﷼', 'USD', 'SAR', 'ر.س', '%', '٪', '٫', '٬', '.', ',', '،', '؟', '!', ':', '/', '-', '–', '(', ')', '«', '»', '"', "'", '&', '+', '@', '#', '*',
  '0', '7', '12', '2024', '15/3/2024', '10:30', '99999999999999999.99', '9999999999999999', '1,250', '٣', '۵', '٠٥٠١٢٣٤٥٦٧', '+966501234567', '1e5', '-5', '3.5.1',
  'Google', 'iPhone', 'GPS', 'AI', 'ChatGPT', 'U.S.A', 'München', 'www.sawt.ai', 'info@sawt.ai', 'https://x.y/z?q=1', 'Wi-Fi', "McDonald's",
  '😀', '👍🏽', '🇸🇦', '\u200f', '\u200d', '\u0640', '\u064b', '\u0651', '\u0670', '\ufdfa', '[[', ']]', '[[maRHaba]]', '\ue010', '\ue011', '\n', '\t', '  ',
];
const piece = fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 }));
const mixedText = fc.array(fc.tuple(piece, fc.constantFrom('', ' ', ' ', '\n')), { maxLength: 24 }).map((xs) => xs.map(([p, s]) => p + s).join(''));
const anyText = fc.oneof(mixedText, fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 80 }));

/** What the normalizer must never leave for an engine to guess at (outside [[ ]]). */
const UNREAD = /[0-9\u0660-\u0669\u06f0-\u06f9$€£¥﷼%٪]/u;
const outsideRaw = (s) => s.replace(/\[\[[\s\S]*?\]\]/gu, '');
const lettersAndDigits = (s) => [...s].filter((c) => /[\p{L}\p{N}]/u.test(c)).join('');

const CONSONANTS = ['ah', 'b', 't', '^', 'j', 'H', 'x', 'd', 'th', 'r', 'z', 's', 'ch', 'S', 'D', 'T', 'Z', 'E', 'g', 'f', 'q', 'k', 'l', 'm', 'n', 'h', 'w', 'y'];
const HTS_PHONES = new Set([...CONSONANTS, ...CONSONANTS.map((p) => (p === 'ah' ? 'ahh' : p + p)), 'v', 'a', 'i', 'u', 'A', 'I', 'U', 'aa', 'AA', 'ii', 'II', 'uu', 'UU', 'ia', 'ua', 'uua', 'pau']);
const LABEL = /^(\S+)\^(\S+)-(\S+)\+(\S+)=(\S+)@(?:\d+_\d+|x_x)\/A:/u;

t.test('normalizer: never throws, and reads every digit, currency sign and percent', async (t) => {
  fc.assert(fc.property(anyText, (text) => {
    const out = normalizeArabic(text);
    if (UNREAD.test(outsideRaw(out))) throw new Error(`unread in ${JSON.stringify(out)}`);
  }), { numRuns: 1500, examples: [['$99999999999999999.99'], ['99999999999999999.99 ريال'], ['$9999999999999999'], ['MP3 وكتاب5 و1.2.3']] });
  t.pass('1500 random texts');
});

t.test('segmenter: never throws, loses no letter or digit, respects its limits', async (t) => {
  fc.assert(fc.property(anyText, fc.integer({ min: 20, max: 300 }), (text, maxChars) => {
    const firstMaxChars = Math.max(10, Math.floor(maxChars / 2));
    const segs = segmentText(text, { maxChars, firstMaxChars });
    if (lettersAndDigits(segs.join('')) !== lettersAndDigits(text)) throw new Error('letters or digits lost');
    segs.forEach((s, i) => {
      if (s !== s.trim() || s === '') throw new Error(`untrimmed or empty segment ${JSON.stringify(s)}`);
      const limit = i === 0 ? firstMaxChars : maxChars;
      if (s.length > limit && /\s/u.test(s)) throw new Error(`segment over ${limit}: ${s.length}`);
    });
  }), { numRuns: 1500, examples: [['𔙇𮹞𔙇𮹞𮹞𘳖 "𐀀مرحبا', 20]] });
  t.pass('1500 random texts');
});

t.test('HTS labels: never throw, well formed, only the voice\'s phones', async (t) => {
  fc.assert(fc.property(anyText, fc.boolean(), (text, normalized) => {
    for (const u of textToLabels(normalized ? normalizeArabic(text) : text)) {
      for (const label of u) {
        const m = LABEL.exec(label);
        if (!m) throw new Error(`malformed label ${label}`);
        if (!HTS_PHONES.has(m[3])) throw new Error(`phone ${m[3]} not in the voice's set`);
      }
    }
  }), { numRuns: 1500 });
  t.pass('1500 random texts');
});

t.test('the whole front end (normalize → Latin words → phones) never throws, for either voice', async (t) => {
  const pipeline = new EngineTextPipeline({ diacritizer: null, dialects: new Map() });
  await fc.assert(fc.asyncProperty(mixedText, fc.constantFrom('espeak', 'hts'), async (text, phonemes) => {
    const { segments } = await segmentsOf(pipeline.frontEnd, { text, dialect: null, diacritize: false, phonemes });
    if (phonemes === 'hts') for (const s of segments) textToLabels(s);
  }), { numRuns: 300 });
  const reader = new LatinReader();
  await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 30 }), async (text) => {
    await reader.read(text, 'espeak');
    await reader.read(text, 'hts');
  }), { numRuns: 300 });
  t.pass('300 + 300 random texts');
});
