import { readdirSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ENGINE, repoRoot } from './helpers.js';

const { EngineTextPipeline, loadDialects, BUILTIN_DIALECTS_DIR, Lexicon } = await import(ENGINE);
const dialects = loadDialects([BUILTIN_DIALECTS_DIR]);
// No diacritizer: inputs are written fully diacritized, so the results do not depend on the model.
const pipeline = new EngineTextPipeline({ diacritizer: null, dialects, lexicon: { 'صوت': 'صَوْتْ', 'Sawt': "[[s'awt]]" } });
const ph = (text, dialect) => pipeline.run('phonemize', text, { dialect });

// Words carrying each affected sound, and words carrying none.
const QAAL = 'قَالَ';        // ق
const JAMIIL = 'جَمِيل';     // ج
const THALATH = 'ثَلَاث';    // ث
const DHAHAB = 'ذَهَب';      // ذ
const DHUHR = 'ظُهْر';       // ظ
const LAKI = 'لَكِ';         // ك before a front vowel
const NEUTRAL = 'سَمَاء وَبَحْر'; // none of them

const expected = {
  fusha: { [QAAL]: "q'a:la", [JAMIIL]: "dZ'ami:l", [THALATH]: "T'ala:T", [DHAHAB]: "D'ahab", [DHUHR]: "Z'u.hR", [LAKI]: 'lak,i' },
  egyptian: { [QAAL]: "?'a:la", [JAMIIL]: "g'ami:l", [THALATH]: "t'ala:t", [DHAHAB]: "d'ahab", [DHUHR]: "dH'u.hR", [LAKI]: 'lak,i' },
  hijazi: { [QAAL]: "?'a:la", [JAMIIL]: "dZ'ami:l", [THALATH]: "t'ala:t", [DHAHAB]: "d'ahab", [DHUHR]: "dH'u.hR", [LAKI]: 'lak,i' },
  najdi: { [QAAL]: "g'a:la", [JAMIIL]: "dZ'ami:l", [THALATH]: "T'ala:T", [DHAHAB]: "D'ahab", [DHUHR]: "Z'u.hR", [LAKI]: 'latS,i' },
  emirati: { [QAAL]: "g'a:la", [JAMIIL]: "j'ami:l", [THALATH]: "T'ala:T", [DHAHAB]: "D'ahab", [DHUHR]: "Z'u.hR", [LAKI]: 'latS,i' },
  kuwaiti: { [QAAL]: "g'a:la", [JAMIIL]: "j'ami:l", [THALATH]: "T'ala:T", [DHAHAB]: "D'ahab", [DHUHR]: "Z'u.hR", [LAKI]: 'latS,i' },
};

t.test('every shipped dialect file is loaded, and fusha has no rules', async (t) => {
  const files = readdirSync(path.join(repoRoot, 'plugins/engine/dialects')).map((f) => f.replace(/\.json$/u, '')).sort();
  t.same(pipeline.dialects(), files);
  t.same(files, ['egyptian', 'emirati', 'fusha', 'hijazi', 'kuwaiti', 'najdi']);
  t.equal(dialects.get('fusha').hasRules, false);
});

for (const [dialect, words] of Object.entries(expected)) {
  t.test(`${dialect}: expected phoneme changes, none on words without the sounds`, async (t) => {
    for (const [word, phonemes] of Object.entries(words)) t.equal(await ph(word, dialect), `[[${phonemes}]]`, word);
    t.equal(await ph(NEUTRAL, dialect), await ph(NEUTRAL, 'fusha'), 'unaffected words keep the MSA phonemes');
    // In synthesis (not display), clauses the rules leave alone stay text, keeping espeak's prosody.
    const r = await pipeline.frontEnd.process({ text: `${NEUTRAL}.`, dialect, phonemes: 'espeak' });
    t.same(r, { segments: [`${NEUTRAL}.`], phonemeInput: false });
  });
}

t.test('dialect lexicons replace frequent words; the operator lexicon wins', async (t) => {
  t.equal(await pipeline.run('diacritize', 'ماذا', { dialect: 'egyptian' }), 'إِيه');
  t.equal(await ph('ماذا', 'egyptian'), "[[?'i:h]]");
  t.equal(await pipeline.run('diacritize', 'ماذا', { dialect: 'kuwaiti' }), 'شِنُو');
  t.equal(await pipeline.run('diacritize', 'ماذا', { dialect: 'fusha' }), 'ماذا');
  const lex = new Lexicon({ 'ماذا': 'operator' }, dialects.get('egyptian').lexicon);
  t.equal(await lex.apply('ماذا تريد'), 'operator تريد');
});

t.test('pronunciation lexicon and inline phonemes', async (t) => {
  t.equal(await pipeline.run('diacritize', 'خدمة صوت'), 'خدمة صَوْتْ', 'diacritized replacement kept as written');
  t.equal(await pipeline.run('diacritize', 'صوت', { dialect: 'egyptian' }), 'صَوْتْ', 'operator lexicon applies with every dialect');
  const r = await pipeline.frontEnd.process({ text: 'مرحبا Sawt اليوم', dialect: 'fusha', phonemes: 'espeak' });
  t.same(r, { segments: ["مرحبا [[s'awt]] اليوم"], phonemeInput: true }, 'lexicon phonemes reach the engine as [[ ]] input');
  const raw = await pipeline.frontEnd.process({ text: "قَالَ [[dZ'a.:d. q]] قَالَ", dialect: 'egyptian', phonemes: 'espeak' });
  t.same(raw.segments, ["[[?'a:la]] [[dZ'a.:d. q]] [[?'a:la]]"], 'rules never touch raw phonemes written by the user');
  t.equal(raw.phonemeInput, true);
});

t.test('a new dialect is a data file', async (t) => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-dialect-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ dialect: 'sudanese', rules: [{ match: 'q', replace: 'G' }], lexicon: {} }));
  const more = loadDialects([BUILTIN_DIALECTS_DIR, dir]);
  const p = new EngineTextPipeline({ diacritizer: null, dialects: more });
  t.equal(await p.run('phonemize', QAAL, { dialect: 'sudanese' }), "[[G'a:la]]");
  await t.rejects(p.run('phonemize', QAAL, { dialect: 'nowhere' }), /unknown dialect/);
});

t.test('lexicon entries also match after Arabic clitics (وصوت، بالصوت، لذلك), text replacements only', async (t) => {
  const { removeKeepMarks } = await import('../../plugins/engine/dist/frontend/diacritize.js');
  const lex = new Lexicon({ صوت: 'صَوْت', سوني: '[[so:ni]]' });
  t.equal(removeKeepMarks(await lex.apply('وصوت بالصوت')), 'وصَوْت بالصَوْت');
  t.equal(await lex.apply('وسوني'), 'وسوني', 'a phoneme replacement cannot take a clitic');
  t.equal(await lex.apply('الصوتيات'), 'الصوتيات', 'a longer word is not the entry');
});
