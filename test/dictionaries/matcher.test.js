// Pronunciation rules applied to text (the engine front end's matcher): whole words, diacritics,
// Arabic proclitics, Latin case, longest match, the locators' order, aliases billed as spoken and
// phoneme rules as x-sawt passages with the proclitics read into them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ssml = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));
const pp = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/phoneme-passages.js'));

const alias = (string_to_replace, a) => ({ string_to_replace, type: 'alias', alias: a });
const phoneme = (string_to_replace, ph, alphabet = 'x-sawt') => ({ string_to_replace, type: 'phoneme', phoneme: ph, alphabet });
// An alias with diacritics comes kept from the diacritizer (KEEP_START … KEEP_END, as the lexicon's); `text` shows it without them.
const KEEP = /[\ue002\ue003]/gu;
const apply = (rules, text) => {
  const r = new ssml.PronunciationMatcher(rules).apply(text);
  return { ...r, kept: r.text, text: r.text.replace(KEEP, '') };
};

t.test('an alias written with diacritics is kept from the diacritizer; one without is diacritized', async (t) => {
  t.equal(apply([alias('ونسا', 'وَنَسَا')], 'زرنا ونسا اليوم').kept, 'زرنا \ue002وَنَسَا\ue003 اليوم');
  t.equal(apply([alias('WHO', 'منظمة الصحة')], 'قالت WHO').kept, 'قالت منظمة الصحة');
  t.equal(apply([alias('ونسا', 'وَنَسَا')], 'زرنا ونسا اليوم').spoken, 'زرنا وَنَسَا اليوم', 'billed without the marks');
});

t.test('whole words only', async (t) => {
  const r = apply([alias('سام', 'سامي')], 'سام وسامر حسام سام.');
  t.equal(r.text, 'سامي وسامر حسام سامي.', 'سامر and حسام contain سام but are other words');
  t.equal(apply([alias('cat', 'kitten')], 'cat catalog concat cat-like').text, 'kitten catalog concat kitten-like');
});

t.test('diacritic-insensitive, unless the rule carries diacritics', async (t) => {
  t.equal(apply([alias('الرياض', 'الرِّياض')], 'الرِّيَاض والرياض').text, 'الرِّياض والرِّياض', 'a bare rule matches diacritized and bare text');
  const exact = [alias('عِلْم', 'عِلْمٌ'), alias('عَلَم', 'عَلَمٌ')];
  t.equal(apply(exact, 'عِلْم عَلَم علم').text, 'عِلْمٌ عَلَمٌ علم', 'a diacritized rule matches only that diacritization');
  t.equal(apply([alias('Zurich', 'زيورخ')], 'Zürich zurich ZURICH').text, 'زيورخ زيورخ زيورخ', 'Latin: case and accents');
  t.equal(apply([alias('Café', 'كافيه')], 'café cafe').text, 'كافيه cafe', 'a Latin rule with an accent needs it');
  t.equal(apply([alias('الرياض', 'x')], 'الريـــاض').text, 'x', 'tatweel is no letter');
});

t.test('Arabic proclitics و ف ب ك ل ال and their combinations', async (t) => {
  const rules = [alias('الرياض', 'الرِّياض'), alias('ونسا', 'وَنَسَا')];
  t.equal(apply(rules, 'وبالرياض فالرياض كالرياض والرياض بالرياض').text, 'وبالرِّياض فالرِّياض كالرِّياض والرِّياض بالرِّياض');
  t.equal(apply(rules, 'للرياض وللرياض').text, 'للرِّياض وللرِّياض', 'ل + the article is written لل');
  t.equal(apply(rules, 'ونسا وونسا بونسا فونسا').text, 'وَنَسَا ووَنَسَا بوَنَسَا فوَنَسَا');
  const bare = [alias('كتاب', 'كِتَاب')];
  t.equal(apply(bare, 'الكتاب بالكتاب وللكتاب كتابي').text, 'الكِتَاب بالكِتَاب وللكِتَاب كتابي', 'the article before a rule without one; كتابي is another word');
  t.equal(apply([alias('Paris', 'باريس')], 'وParis').text, 'وParis', 'Latin rules take no Arabic proclitics');
});

t.test('longest match first, then the locators\' order', async (t) => {
  const rules = [alias('الأمم', 'A'), alias('الأمم المتحدة', 'B')];
  t.equal(apply(rules, 'الأمم المتحدة والأمم').text, 'B وA', 'the two-word rule wins where it matches');
  t.equal(apply(rules, 'وبالأمم  المتحدة').text, 'وبB', 'a multi-word rule behind proclitics, white space collapsed');
  t.equal(apply(rules, 'الأمم-المتحدة').text, 'A-المتحدة', 'the words must be separated as in the rule');
  t.equal(apply([alias('WHO', 'first'), alias('who', 'second')], 'WHO').text, 'first', 'same words: the earlier rule (earlier locator) wins');
  t.equal(apply([alias('who', 'second'), alias('WHO', 'first')], 'WHO').text, 'second');
});

t.test('phoneme rules become x-sawt passages, proclitics read into them', async (t) => {
  const rules = [phoneme('الرياض', 'ʔarrijaːdˤ', 'ipa'), phoneme('كتاب', 'kita:b'), phoneme('شمس', 'Sams')];
  const r = apply(rules, 'وبالرياض وللرياض والرياض الرياض');
  t.equal(r.text, '[[wabirrija:dH]] [[walirrija:dH]] [[warrija:dH]] [[?arrija:dH]]', 'hamzat al-wasl goes after a proclitic');
  t.equal(r.spoken, 'وبالرياض وللرياض والرياض الرياض', 'billed as written');
  t.equal(apply(rules, 'الكتاب للكتاب وكتاب').text, '[[?alkita:b]] [[lilkita:b]] [[wakita:b]]');
  t.equal(apply(rules, 'الشمس والشمس').text, '[[?aSSams]] [[waSSams]]', 'the article takes a sun letter');
  for (const p of pp.parsePhonemePassages(r.text)) t.notOk(p.unknown, `${p.inner} is x-sawt`);
  t.ok(pp.checkPhonemePassages(r.text, pp.htsInventory('sawt-hts')), 'and sawt-hts can say it');
  t.equal(apply(rules, 'نص [[kita:b]] كتاب').text, 'نص [[kita:b]] [[kita:b]]', 'passages already in the text are left alone');
});

t.test('rules that cannot be used are 400s naming them', async (t) => {
  const refusal = (rules) => {
    try {
      new ssml.PronunciationMatcher(rules);
    } catch (e) {
      return e;
    }
    return null;
  };
  const ipa = refusal([phoneme('كلمة', 'ʘa', 'ipa')]);
  t.equal(ipa.code, 40001);
  t.match(ipa.message, /pronunciation rule 'كلمة': the IPA symbol 'ʘ'/u);
  t.match(refusal([phoneme('كلمة', 'ba]]x')]).message, /pronunciation rule 'كلمة'.*not a phoneme symbol/u);
  t.match(refusal([alias('...', 'x')]).message, /has no word to match/u);
});

t.test('on a document: text runs only, dictionary aliases billed as spoken', async (t) => {
  const doc = ssml.parseSpeechText('<speak>زرت WHO و<sub alias="WHO">و</sub> في <say-as interpret-as="characters">WHO</say-as></speak>');
  const out = ssml.applyPronunciations(doc, new ssml.PronunciationMatcher([alias('WHO', 'منظمة الصحة')]));
  const runs = out.items.filter((i) => i.kind === 'speech');
  t.equal(runs[0].text, 'زرت منظمة الصحة و');
  t.equal(runs[1].text, 'WHO', 'a sub says itself how it is read');
  t.equal(ssml.ssmlBillableText(out), 'زرت منظمة الصحة وWHO في WHO');
  const plain = ssml.applyPronunciations(ssml.parseSpeechText('مرحبا <break time="1s"/> WHO'), new ssml.PronunciationMatcher([alias('WHO', 'منظمة')]));
  t.equal(ssml.ssmlBillableText(plain), 'مرحبا منظمة');
});
