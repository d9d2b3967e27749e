// The front end cuts a request's long first clause for sawt-hts (hts.firstChunkChars) so that its
// first part is an utterance of its own: before a word that starts a phrase when there is one.
import t from 'tap';

const { firstChunk } = await import('../../plugins/engine/dist/index.js');

t.test('a long first clause is cut before a preposition within the limit, the rest kept whole', async (t) => {
  const text = 'ذهب الطالب الصغير مع أصدقائه إلى المدرسة القديمة في الصباح الباكر وعاد مساء';
  const pieces = firstChunk([text, 'ثم نام.'], 40, true);
  t.same(pieces.map((p) => p.text), ['ذهب الطالب الصغير مع أصدقائه', 'إلى المدرسة القديمة في الصباح الباكر وعاد مساء', 'ثم نام.']);
  t.same(pieces.map((p) => p.cut), [true, false, false]);
  t.ok(pieces[0].text.length <= 40);
});

t.test('without a phrase word in reach the cut falls on the last word boundary; short clauses stay', async (t) => {
  const text = 'يسعدنا أن نقدم لكم اليوم خدمة صوت الجديدة لتحويل النصوص العربية إلى كلام طبيعي';
  const [a, b] = firstChunk([text], 40, true);
  t.ok(a.cut && a.text.length <= 40, `${a.text} | ${b.text}`);
  t.equal(`${a.text} ${b.text}`, text, 'nothing lost');
  t.same(firstChunk(['مرحبا بكم.'], 40, true), [{ text: 'مرحبا بكم.', cut: false }]);
  t.same(firstChunk(['ذهب الطالب الصغير مع أصدقائه إلى المدرسة القديمة في الصباح'], 0, true).length, 1, '0: no cut');
});
