// Phoneme ids for Arabic sentences equal golden ids made with Piper's own rule (see
// phoneme-id-goldens.json "producedBy" and test/piper/README.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { STANDIN } from './helpers.js';

const { piperSentences, phonemeIds, readPiperVoiceConfig, firstChunk } = await import('../../plugins/engine/dist/index.js');
const goldens = JSON.parse(readFileSync(new URL('./phoneme-id-goldens.json', import.meta.url), 'utf8'));
const config = readPiperVoiceConfig(join(STANDIN, 'ar_JO-standin-tiny.onnx.json'));

t.test('ids of at least 10 Arabic sentences equal the goldens, sentence by sentence', async (t) => {
  t.ok(goldens.cases.length >= 10);
  for (const c of goldens.cases) {
    const sentences = await piperSentences(c.text, 'ar', config.phonemeMap);
    t.same(sentences.map((s) => s.join('')), c.phonemes, `phonemes: ${c.text}`);
    t.same(sentences.map((s) => phonemeIds(s, config.idMap).ids), c.ids, `ids: ${c.text}`);
    for (const s of sentences) t.same(phonemeIds(s, config.idMap).missing, [], 'no phoneme missing from the map');
  }
});

t.test('the id rule: ^ _ then each phoneme and a pad, then $; unknown phonemes are skipped', async (t) => {
  const map = new Map([['^', [1]], ['_', [0]], ['$', [2]], ['a', [14]], ['b', [15]]]);
  t.same(phonemeIds(['a', 'b'], map), { ids: [1, 0, 14, 0, 15, 0, 2], missing: [] });
  t.same(phonemeIds(['a', 'ʕ', 'b'], map), { ids: [1, 0, 14, 0, 15, 0, 2], missing: ['ʕ'] });
});

t.test('[[espeak mnemonics]] from the lexicon or dialect rules become IPA too', async (t) => {
  const [s] = await piperSentences("[[m'arHaba]] بِكُمْ.", 'ar', config.phonemeMap);
  t.equal(s.join(''), 'mˈarħaba bikˌum.');
});

t.test('a long first sentence is cut at a clause mark, else a word boundary, within the limit', async (t) => {
  const long = 'ذَهَبَ الطَّالِبُ إِلَى الْمَدْرَسَةِ، وَعَادَ مَسَاءً مَعَ أَصْدِقَائِهِ الْكَثِيرِينَ.';
  const pieces = firstChunk([long, 'ثُمَّ نَامَ.'], 40);
  t.same(pieces.map((p) => p.cut), [true, false, false]);
  t.equal(pieces[0].text, 'ذَهَبَ الطَّالِبُ إِلَى الْمَدْرَسَةِ،');
  t.equal(pieces.slice(0, 2).map((p) => p.text).join(' '), long);
  t.same(firstChunk(['قَصِيرٌ.'], 40), [{ text: 'قَصِيرٌ.', cut: false }]);
  const words = firstChunk(['كَلِمَةٌ وَكَلِمَةٌ أُخْرَى وَكَلِمَةٌ ثَالِثَةٌ وَرَابِعَةٌ'], 20);
  t.ok(words[0].text.length <= 20 && words.length === 2);
});
