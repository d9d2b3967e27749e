// A dictionary alias written with diacritics reaches the diacritizer kept as written (as the
// operator lexicon's diacritized entries do): the matcher marks it, the normalizer passes it
// through and normalizes the text around it, the sentence's punctuation included.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ssml = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));
const { normalizeText } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/normalize.js'));
const { KEEP_START, KEEP_END } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/diacritize.js'));

const rules = [{ string_to_replace: 'ونسا', type: 'alias', alias: 'وَنَسَا' }, { string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة' }];

t.test('matcher → normalizer: the diacritized alias kept, the rest normalized', async (t) => {
  const { text } = new ssml.PronunciationMatcher(rules).apply('زرنا ونسا في 3 أيام. ونسا، ثم WHO');
  const out = normalizeText(text);
  t.equal(out, `زرنا ${KEEP_START}وَنَسَا${KEEP_END} في ثلاثة أيام. ${KEEP_START}وَنَسَا${KEEP_END}، ثم منظمة الصحة`);
  t.equal(normalizeText(`${KEEP_START}وَنَسَا${KEEP_END}. وفي 3`), `${KEEP_START}وَنَسَا${KEEP_END}. وفي ثلاثة`, 'the sentence end after a kept passage stays');
  t.equal(normalizeText('في 3 أيام'), 'في ثلاثة أيام', 'text without kept passages as before');
});

t.test('prepare: the step carries the kept alias; billing counts it without the marks', async (t) => {
  const pp = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/phoneme-passages.js'));
  const r = ssml.prepareSpeechText({ text: 'زرنا ونسا في الصيف الماضي', rules, speed: 1, model: { id: 'sawt-hts', inventory: pp.htsInventory('sawt-hts'), minRate: 0.3, maxRate: 3 } });
  t.equal(r.steps[0].text, `زرنا ${KEEP_START}وَنَسَا${KEEP_END} في الصيف الماضي`);
  t.equal(r.billableText, 'زرنا وَنَسَا في الصيف الماضي');
});
