// `sawt text normalize|diacritize|phonemize --ssml | --dictionary FILE`: each stage's output for a
// text read as a request reads it (issue 32): SSML markup is never read as words, breaks, marks,
// prosody and language stay visible as markup, dictionary rules (PLS or JSON) apply first.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tempDir, repoRoot, runSawt as sawt } from '../helpers/server.js';

const dir = tempDir(t);
const env = { SAWT_DATA_DIR: dir, SAWT_MODELS_DIR: path.join(dir, 'models') };

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="ar">
  <lexeme><grapheme>الرياض</grapheme><alias>العاصمة السعودية</alias></lexeme>
  <lexeme><grapheme>NASA</grapheme><alias>ناسا</alias></lexeme>
</lexicon>
`;
const plsFile = path.join(dir, 'names.pls');
writeFileSync(plsFile, PLS);
const jsonFile = path.join(dir, 'rules.json');
writeFileSync(jsonFile, JSON.stringify({ rules: [{ string_to_replace: 'ونسا', type: 'phoneme', phoneme: 'wanisa', alphabet: 'x-sawt' }] }));

t.test('normalize --ssml: the spoken parts normalized, the markup shown as markup and never read', { timeout: 120000 }, async (t) => {
  const ssml = '<speak>وصل <break time="500ms"/> في <say-as interpret-as="telephone">0551234567</say-as> <mark name="m1"/><prosody rate="fast">يوم 3 مارس</prosody> <sub alias="منظمة الصحة العالمية">WHO</sub> <lang xml:lang="en">hello</lang></speak>';
  const r = await sawt(['text', 'normalize', '--ssml', ssml], { env });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout,
    'وصل <break time="500ms"/> في صفر خمسة خمسة واحد اثنان ثلاثة أربعة خمسة ستة سبعة <mark name="m1"/> '
    + '<prosody rate="120%">يوم الثالث من مارس</prosody> منظمة الصحة العالمية <lang xml:lang="en">hello</lang>\n');
  t.notMatch(r.stdout, /speak|WHO|0551/u, 'no tag name, sub source or raw digits read as text');
});

t.test('bad SSML: exit 1 with the line:column and the tag; with --file, the input line too', { timeout: 120000 }, async (t) => {
  const r = await sawt(['text', 'normalize', '--ssml', '<speak>مرحبا <break time="500ms">بكم</speak>'], { env });
  t.equal(r.code, 1);
  t.equal(r.stderr, 'sawt: SSML: unclosed <break> at 1:14\n');
  const unsupported = await sawt(['text', 'diacritize', '--ssml', '<speak>مرحبا <audio src="x.wav"/> بكم</speak>'], { env });
  t.equal(unsupported.code, 1);
  t.match(unsupported.stderr, /<audio>.*1:14/u, 'an unsupported tag is named with its place');

  const lines = ['<speak>مرحبا <break time="1s"/> بكم</speak>', '<speak>اليوم <mark name="a"/> 5 كتب</speak>', '<speak>خطأ <prosody rate="fast">هنا</speak>'];
  const many = await sawt(['text', 'normalize', '--ssml', '--file', '-'], { input: lines.join('\n'), env });
  t.equal(many.code, 1);
  t.match(many.stderr, /^sawt: line 3: SSML: .*<prosody>.*1:/u, 'the failing line is named');
  const good = await sawt(['text', 'normalize', '--ssml', '--file', '-', '--json'], { input: lines.slice(0, 2).join('\n'), env });
  t.equal(good.code, 0, good.stderr);
  t.same(good.stdout.trim().split('\n').map((l) => JSON.parse(l)), [
    { line: 1, input: lines[0], output: 'مرحبا <break time="1000ms"/> بكم' },
    { line: 2, input: lines[1], output: 'اليوم <mark name="a"/> خمسة كتب' },
  ]);
});

t.test('--dictionary PLS: aliases replace whole words before normalization, behind Arabic proclitics, Latin case-insensitive', { timeout: 120000 }, async (t) => {
  const text = 'زار الوفد وبالرياض وكالة nasa أمس';
  const r = await sawt(['text', 'normalize', '--dictionary', plsFile, text], { env });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'زار الوفد وبالعاصمة السعودية وكالة ناسا أمس\n');
  const without = await sawt(['text', 'normalize', text], { env });
  t.equal(without.stdout, `${text}\n`, 'without the dictionary the words stay');
  const ssml = await sawt(['text', 'normalize', '--ssml', '--dictionary', plsFile, '<speak>من الرياض <break time="300ms"/> إلى جدة</speak>'], { env });
  t.equal(ssml.stdout, 'من العاصمة السعودية <break time="300ms"/> إلى جدة\n', 'SSML and a dictionary together');
});

t.test('--dictionary JSON with a phoneme rule: phonemize shows its phones, in the model\'s own set with --model', { timeout: 120000 }, async (t) => {
  const espeak = await sawt(['text', 'phonemize', '--dictionary', jsonFile, 'قال ونسا كلاما'], { env });
  t.equal(espeak.code, 0, espeak.stderr);
  t.match(espeak.stdout, /\[\[wanisa\]\]/u, 'the x-sawt passage reaches the phonemes as written');
  const hts = await sawt(['text', 'phonemize', '--model', 'sawt-hts', '--dictionary', jsonFile, 'قال ونسا كلاما'], { env });
  t.equal(hts.code, 0, hts.stderr);
  t.match(hts.stdout, / w a n i s a /u, 'sawt-hts: the rule\'s phones as the HTS voice\'s phone names, never dropped');

  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ rules: [{ string_to_replace: 'x', type: 'sound' }] }));
  const refused = await sawt(['text', 'normalize', '--dictionary', bad, 'قال ونسا كلاما'], { env });
  t.equal(refused.code, 2);
  t.equal(refused.stderr, `sawt: --dictionary ${bad}: rules[0].type must be alias or phoneme\n`);
  const missing = await sawt(['text', 'normalize', '--dictionary', path.join(dir, 'nope.pls'), 'قال'], { env });
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^sawt: --dictionary: cannot read .*nope\.pls.*ENOENT/u);
});
