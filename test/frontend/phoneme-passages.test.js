// The phoneme-passage validator (x-sawt notation in [[ ]]): espeak's own cut into symbols, each
// model's inventory, the caps, the last guard before espeak, the HTS mapping (a synthesis without audio
// is a 400: test/backends/formant.test.js).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { repoRoot } from './helpers.js';

const pp = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/phoneme-passages.js'));
const { passagesAsHtsSpans } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/pipeline.js'));
const { htsSpanPhones } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/latin/phone-span.js'));
const { normalizeText } = await import(path.join(repoRoot, 'plugins/engine/dist/index.js'));

const mini = pp.espeakInventory('sawt-mini');
const hts = pp.htsInventory('sawt-hts');
const refusal = (fn) => {
  try {
    fn();
  } catch (e) {
    return { code: e.code, status: e.status, message: e.message };
  }
  return null;
};

/** The mnemonics of espeak-ng's installed `ar` phoneme table (phontab: base + base1 + ar). */
function installedArTable() {
  const file = ['/usr/lib/x86_64-linux-gnu/espeak-ng-data/phontab', '/usr/lib/aarch64-linux-gnu/espeak-ng-data/phontab', '/usr/share/espeak-ng-data/phontab'].find(existsSync);
  if (!file) return null;
  const d = readFileSync(file);
  const tables = [];
  let p = 4;
  for (let k = 0; k < d[0]; k++) {
    const [n, includes] = [d[p], d[p + 1]];
    const name = d.subarray(p + 4, p + 36).toString('latin1').split('\0')[0];
    p += 36;
    const entries = [];
    for (let j = 0; j < n; j++, p += 16) entries.push({ code: d[p + 10], mnemonic: d.subarray(p, p + 4).toString('latin1').split('\0')[0] });
    tables.push({ name, includes, entries });
  }
  const byCode = new Map();
  const setUp = (tab) => {
    if (tab.includes > 0) setUp(tables[tab.includes - 1]);
    for (const e of tab.entries) byCode.set(e.code, e.mnemonic);
  };
  setUp(tables.find((x) => x.name === 'ar'));
  return [...byCode.values()].filter((m) => m && !/[\x00-\x1f]/u.test(m));
}

t.test('the symbol table is the installed espeak-ng Arabic table', async (t) => {
  const installed = installedArTable();
  if (!installed) return t.skip('no espeak-ng phontab found');
  t.same([...pp.ESPEAK_AR_TABLE].sort(), installed.sort());
});

t.test('words are cut as espeak cuts them (longest match, | separates)', async (t) => {
  t.same(pp.tokenizeWord("s'u:q"), { symbols: ['s', "'", 'u', ':', 'q'] });
  t.same(pp.tokenizeWord('dZ|s[a.'), { symbols: ['dZ', 's[', 'a.'] });
  t.same(pp.tokenizeWord('ab$c'), { symbols: ['a', 'b'], unknown: '$' });
  t.same(pp.parsePhonemePassages('x [[ba: s[a]] y').map((p) => p.words), [[['b', 'a', ':'], ['s[', 'a']]]);
});

t.test('each model says its inventory; the rest is 400 / 40001 naming the symbol and the model', async (t) => {
  t.equal(pp.checkPhonemePassages("مرحبا [[s'u:q ?al?a.dH'a:]] بكم", mini).length, 1);
  t.equal(pp.checkPhonemePassages("مرحبا [[s'u:q ?al?a.dH'a:]] بكم", hts).length, 1);
  t.match(refusal(() => pp.checkPhonemePassages('[[baN]]', hts)), { code: 40001, status: 400, message: /sawt-hts cannot say the phoneme 'N'/ });
  t.equal(refusal(() => pp.checkPhonemePassages('[[baN]]', mini)), null, 'sawt-mini says N');
  t.match(refusal(() => pp.checkPhonemePassages('[[_^_en]]', mini)), { message: /sawt-mini cannot say the phoneme '_\^_'/ });
  t.match(refusal(() => pp.checkPhonemePassages('[[baب]]', mini)), { message: /'ب' \(U\+0628\) is not a phoneme symbol/ });
});

t.test('the caps: per word, per passage, per text', async (t) => {
  const L = pp.PHONEME_PASSAGE_LIMITS;
  t.equal(refusal(() => pp.checkPhonemePassages(`[[${'a'.repeat(L.symbolsPerWord)}]]`, mini)), null, 'a word at the cap');
  t.match(refusal(() => pp.checkPhonemePassages(`[[${'a'.repeat(L.symbolsPerWord + 1)}]]`, mini)), { message: /word of 65 phoneme symbols; at most 64 per word/ });
  t.match(refusal(() => pp.checkPhonemePassages(`[[${'a: '.repeat(70)}]]`, mini)), { message: /210 characters long; at most 200 per passage/ });
  const many = Array.from({ length: 9 }, () => `[[${Array.from({ length: 40 }, () => 'ba:').join(' ')}]]`).join(' و ');
  t.match(refusal(() => pp.checkPhonemePassages(many, mini)), { message: /hold 1080 phoneme symbols; at most 1000 per text/ });
});

t.test('the last guard cuts over-long words and drops controls, whoever wrote them', async (t) => {
  const long = `x [[${'a'.repeat(150)} ba:]] y`;
  const guarded = pp.guardPhonemeWords(long);
  const words = pp.parsePhonemePassages(guarded)[0].words;
  t.same(words.map((w) => w.length), [64, 64, 22, 3]);
  t.equal(pp.guardPhonemeWords("x [[s'u:q]] y"), "x [[s'u:q]] y", 'a passage within the caps is left as written');
  t.equal(pp.guardPhonemeWords('[[_^_en ba]]'), '[[e|n ba]]', 'a table switch is dropped');
});

t.test('passages become HTS phones: long vowels, geminates, stress marks dropped', async (t) => {
  t.same(pp.htsPhonesOf(pp.tokenizeWord("s'u:q").symbols), ['s', 'uu', 'q']);
  t.same(pp.htsPhonesOf(pp.tokenizeWord('?al?a.dH:a:').symbols), ['ah', 'a', 'l', 'ah', 'A', 'D', 'aa']);
  t.same(pp.htsPhonesOf(pp.tokenizeWord('mubbaDA').symbols), ['m', 'u', 'bb', 'a', 'th', 'E']);
  const spans = passagesAsHtsSpans("مرحبا [[s'u:q ga]] بكم").split(/\s+/u).map(htsSpanPhones).filter(Boolean);
  t.same(spans, [['s', 'uu', 'q'], ['G', 'a']]);
});

t.test('Braille patterns (espeak-ng aborts naming 7 or 8 dots) are removed by the normalizer', async (t) => {
  t.equal(await normalizeText('مرحبا ⣿ بكم ⣟⣯⠁ في خدمة'), 'مرحبا بكم في خدمة');
});

// espeak-ng 1.51 frees the second-language translator still reading a word of these scripts when one of
// its characters needs yet another language (a use after free; segfaults found by `npm run fuzz`).
t.test('scripts espeak-ng reads with another translator are dropped; Greek letters kept as words of their own', async (t) => {
  t.equal(await normalizeText('مرحبا ჎ بكم ೼ في ᇝ خدمة'), 'مرحبا بكم في خدمة', 'Georgian, Kannada, Hangul jamo');
  t.equal(await normalizeText('مرحبا Հայ नमस्ते 안녕 ㄱ بكم'), 'مرحبا بكم', 'Armenian, Devanagari, Hangul');
  t.equal(await normalizeText('قيمة πب تقريبا'), 'قيمة π ب تقريبا', 'a Greek letter is not glued to an Arabic one');
  t.equal(await normalizeText('abcΩ test'), 'abc Ω test', 'nor to a Latin one');
  t.equal(await normalizeText('مرحبا αβγ بكم'), 'مرحبا αβγ بكم', 'a Greek word stays');
});
