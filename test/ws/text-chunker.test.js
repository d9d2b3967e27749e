// The WebSocket session's text-chunking policy, without a server: where Arabic text streamed in
// pieces is cut for synthesis (sentence ends, the 50/120/200 length schedule, try_trigger_generation)
// and what a flush does with what is left.
import t from 'tap';
import { NOTHING_TO_SPEAK, TextChunker } from '@sawt/plugin-transport-ws';

/** Adds each text in turn; returns the pieces cut, in order. */
function feed(chunker, texts, tryNow = false) {
  const pieces = [];
  for (const text of texts) {
    chunker.add(text);
    const piece = chunker.next(tryNow);
    if (piece !== null) pieces.push(piece);
  }
  return pieces;
}

t.test('a piece ends at the last sentence end of the buffer (. ؟ ! … and a newline), never at a comma', async (t) => {
  const c = new TextChunker();
  t.same(feed(c, ['مرحبا بكم في خدمة صوت، ', 'للنطق العربي']), [], 'no sentence end yet, and under 50 characters');
  t.same(feed(c, ['. نقدم لكم']), ['مرحبا بكم في خدمة صوت، للنطق العربي.'], 'cut just after the full stop');
  t.equal(c.buffered, ' نقدم لكم'.length, 'the rest waits');
  t.same(feed(c, [' صوتا واضحا؟ هل تسمعني! نعم… ', 'وأكثر']), [' نقدم لكم صوتا واضحا؟ هل تسمعني! نعم…'], 'the last of several ends in one message');
  t.same(feed(new TextChunker(), ['السطر الأول\nالسطر الثاني']), ['السطر الأول\n'], 'a newline ends a sentence');
});

t.test('punctuation alone is kept with the text that follows', async (t) => {
  const c = new TextChunker();
  t.same(feed(c, ['. ']), [], 'nothing to speak in ". "');
  t.equal(c.buffered, 2);
  t.same(feed(c, ['أهلا وسهلا بكم.']), ['. أهلا وسهلا بكم.']);
  t.equal(c.buffered, 0);
});

t.test('without a sentence end: cut at the last whole word past 50, then 120, then 200 characters', async (t) => {
  const c = new TextChunker();
  const words = 'كلمة عربية طويلة '.repeat(40); // 17 characters a group, no sentence end
  const at = (n) => words.slice(0, n);
  t.same(feed(c, [at(50)]), [], '50 characters: not past the first limit');
  const [first] = feed(c, [words.slice(50, 51)]);
  t.equal(first, at(51).slice(0, at(51).lastIndexOf(' ')), 'past 50: cut at the last white space');
  t.ok(first.length <= 50 && !first.endsWith(' '), `${first.length} characters, whole words`);
  c.clear();
  t.same(feed(c, [at(120)]), [], '120 characters: not past the second limit');
  const [second] = feed(c, ['x']);
  t.ok(second.length > 100 && second.length <= 120, `second piece: ${second.length} characters`);
  c.clear();
  t.same(feed(c, [at(200)]), [], '200: not past the third limit');
  t.ok(feed(c, ['x'])[0].length > 180, 'past 200: cut');
  c.clear();
  t.same(feed(c, [at(200)]), [], 'and 200 for every later piece');
  t.equal(feed(c, ['x']).length, 1);
});

t.test('a message longer than the limit gives one piece, its rest waits for more text', async (t) => {
  const c = new TextChunker();
  const text = 'هذا نص طويل بلا علامة ترقيم يصل إلى أكثر من خمسين حرفا بكثير ثم يستمر';
  const [piece] = feed(c, [text]);
  t.equal(piece, text.slice(0, text.lastIndexOf(' ')));
  t.equal(c.buffered, text.length - piece.length, 'the last word and its space wait');
});

t.test('try_trigger_generation cuts the whole words once they make 20 characters', async (t) => {
  const c = new TextChunker();
  t.same(feed(c, ['مرحبا بكم جميعا'], true), [], '15 characters: too short');
  t.same(feed(c, [' في خدمة'], true), [], '23 characters, but the words before the last (it may go on) make 18');
  t.same(feed(c, [' صوت'], true), ['مرحبا بكم جميعا في خدمة'], 'the whole words make 23: cut before the last word');
  t.same(feed(c, [' اليوم'], true), [], 'the rest is under 20 characters');
  t.same(feed(new TextChunker(), ['مرحبا بكم جميعا في خدمة صوت'], false), [], 'without it, the same text waits');
});

t.test('flush: the rest as the last piece; the text rule on what came since the previous flush', async (t) => {
  const c = new TextChunker();
  t.same(feed(c, ['مرحبا بكم في خدمة صوت. ', 'نقدم لكم']), ['مرحبا بكم في خدمة صوت.']);
  t.equal(c.flush(), ' نقدم لكم', 'the rest is generated');
  t.equal(c.buffered, 0);

  c.add('نص كامل هنا.');
  t.equal(c.next(), 'نص كامل هنا.');
  t.equal(c.flush(), null, 'everything was cut already: nothing left, no error');

  c.add('مرحبا بكم');
  t.throws(() => c.flush(), { code: 40001, message: 'text must have at least 3 words and 10 characters' });
  t.equal(c.buffered, 0, 'a refused flush drops the buffer');

  c.add('... ... ...');
  t.throws(() => c.flush(), { code: 40001, message: NOTHING_TO_SPEAK });
  t.equal(c.buffered, 0);

  // The rule counts everything since the flush before, cut pieces included.
  c.add('أهلا.');
  t.equal(c.next(), 'أهلا.');
  c.add(' كيف حالك');
  t.equal(c.flush(), ' كيف حالك', '"أهلا. كيف حالك" has 3 words and 14 characters');
});

t.test('clear drops the buffer and the text counted for the next flush', async (t) => {
  const c = new TextChunker();
  c.add('مرحبا بكم في خدمة');
  c.clear();
  t.equal(c.buffered, 0);
  c.add('صوت');
  t.throws(() => c.flush(), { code: 40001 }, 'only "صوت" counts');
});
