// The WebSocket's SSML stream without a server (initConnection text_type "ssml"): fragments joined,
// cut at generation points into whole documents that the engine parses, a tag split across messages
// waiting for its end, the flush's text rule on the text between the tags, errors placed in the
// session's text.
import path from 'node:path';
import t from 'tap';
import { SsmlChunker, TextChunker, spokenText, splitSsml, inSessionText } from '@sawt/plugin-transport-ws';
import { repoRoot } from '../helpers/server.js';

const { parseSpeechText, ssmlBillableText } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));

/** Adds each fragment in turn; returns the pieces cut, in order. */
function feed(chunker, fragments, tryNow = false) {
  const pieces = [];
  for (const f of fragments) {
    chunker.add(f);
    const piece = chunker.next(tryNow);
    if (piece !== null) pieces.push(piece);
  }
  return pieces;
}

const spokenOf = (docs) => docs.map((d) => ssmlBillableText(parseSpeechText(d, { textType: 'ssml' }))).join(' ');

t.test('a tag split across messages waits for its end; each piece is a whole document', async (t) => {
  const c = new SsmlChunker();
  // A full stop inside the unfinished tag's attribute is no sentence end (plain text would be cut there).
  t.same(feed(c, ['<speak><prosody rate="slow">مرحبا <break time="1.']), [], 'nothing cut inside the tag');
  const pieces = feed(c, ['5s"/> للنطق العربي. ثم جملة', ' ثانية بلا نهاية']);
  t.same(pieces, ['<speak><prosody rate="slow">مرحبا <break time="1.5s"/> للنطق العربي.</prosody></speak>'], 'cut at the sentence end once the tag is whole, open elements closed');
  const rest = c.flush();
  t.equal(rest, '<speak><prosody rate="slow"> ثم جملة ثانية بلا نهاية</prosody></speak>', 'the flush reopens the elements open at the cut and closes what is still open');
  const whole = '<speak><prosody rate="slow">مرحبا <break time="1.5s"/> للنطق العربي. ثم جملة ثانية بلا نهاية</prosody></speak>';
  t.equal(spokenOf([...pieces, rest]), ssmlBillableText(parseSpeechText(whole)), 'every piece parses; nothing lost, nothing twice');
  const docs = [...pieces, rest].map((d) => parseSpeechText(d));
  t.ok(docs.every((d) => d.items.filter((i) => i.kind === 'speech').every((i) => i.prosody.rate === 0.8)), 'the prosody open at the cut still applies after it');
  t.equal(docs[0].items.filter((i) => i.kind === 'break')[0].ms, 1500, 'the split <break> is one break of 1.5 s');
});

t.test('the length schedule cuts at a word end outside markup; the unfinished tag stays for the next piece', async (t) => {
  const c = new SsmlChunker();
  const words = 'ذهب الولد إلى المدرسة في الصباح الباكر مع أخيه الصغير';
  const pieces = feed(c, [`<speak>${words} <mark na`]);
  t.same(pieces, [`<speak>${words}</speak>`], 'over 50 characters: cut before the unfinished <mark');
  t.same(feed(c, ['me="after"/>وعاد ظهرا.</speak>']), ['<speak> <mark name="after"/>وعاد ظهرا.</speak>']);
  t.equal(c.flush(), null, 'a flush with only the closing tag left has nothing to speak');
  const trailing = new SsmlChunker();
  t.same(feed(trailing, ['<speak>مرحبا بكم في خدمة صوت. ', '<mark name="end"/><break time="300ms"/></speak>']), ['<speak>مرحبا بكم في خدمة صوت.</speak>']);
  t.equal(trailing.flush(), '<speak> <mark name="end"/><break time="300ms"/></speak>', 'a mark and a pause with no words after a cut: a piece at the flush');

  const markup = new SsmlChunker();
  t.same(feed(markup, ['<speak><prosody rate="slow" pitch="+2st" volume="loud">مرحبا بكم ', '<mark name="service"/>في خدمة صوت ']), [], 'markup does not count toward the 50 characters');
});

t.test('SSML content without <speak> is read inside one; text type markers in plain words are not cuts', async (t) => {
  const c = new SsmlChunker();
  const pieces = feed(c, ['مرحبا <break time="300ms"/> بكم. ', 'في خدمة صوت للنطق العربي']);
  t.same(pieces, ['<speak>مرحبا <break time="300ms"/> بكم.</speak>']);
  t.equal(c.flush(), '<speak> في خدمة صوت للنطق العربي</speak>');
  t.equal(spokenText('<speak>ثمن &lt;كتاب&gt; <sub alias="ر.س">SAR</sub></speak>'), 'ثمن <كتاب> SAR', 'entities read, tags out');
});

t.test('the text rule of a flush counts the text between the tags; a flush inside a tag is refused', async (t) => {
  const c = new SsmlChunker();
  c.add('<speak><prosody rate="slow" pitch="+2st" volume="loud">كلمة</prosody></speak>');
  t.throws(() => c.flush(), { code: 40001, message: /at least 3 words.*between the SSML tags/su }, 'long markup, one word spoken: too short');
  t.equal(c.buffered, 0, 'the refused text is dropped');
  c.add('<speak>مرحبا بكم في خدمة صوت <break time="1');
  t.throws(() => c.flush(), { code: 40001, message: /ends inside markup.*<break time=\\"1/su });
  c.add('<speak>مرحبا بكم في خدمة صوت</speak>');
  t.equal(c.flush(), '<speak>مرحبا بكم في خدمة صوت</speak>', 'the session goes on');
});

t.test('clear drops the buffered text, not the elements open around it; a refused flush drops the elements it opened', async (t) => {
  const c = new SsmlChunker();
  c.add('<speak><prosody rate="fast">نص يلغى قبل أن يقال <break ti');
  c.clear();
  c.add('نص جديد يقال بسرعة</prosody></speak>');
  t.equal(c.flush(), '<speak><prosody rate="fast">نص جديد يقال بسرعة</prosody></speak>');

  c.add('<speak><emphasis>كلمة ');
  t.throws(() => c.flush(), { code: 40001 }, 'too short');
  c.add('<speak>نص جديد يقال بعد الرفض</speak>');
  t.equal(c.flush(), '<speak>نص جديد يقال بعد الرفض</speak>', 'the refused flush left nothing open');
});

t.test('an error in a piece names its place in the session\'s text', async (t) => {
  const c = new SsmlChunker();
  feed(c, ['<speak>\nالسطر الأول من النص.\n', 'ثم <audio src="x.wav"/>نص بوسم غير مدعوم']);
  const piece = c.flush();
  let err;
  try {
    parseSpeechText(piece);
  } catch (e) {
    err = e;
  }
  t.match(err.message, /<audio>.* at 1:\d+$/u, 'the engine places it in the piece');
  const mapped = inSessionText(err, c.lastPiece);
  t.equal(mapped.code, 40001);
  t.equal(mapped.message, err.message.replace(/at 1:\d+$/u, 'at 3:4 of the session\'s text'), 'line 3, column 4 of the text as sent');
});

t.test('a piece over the size limit is split into whole documents', async (t) => {
  const sentence = 'هذه جملة من نص طويل يقرأ على مهل';
  const doc = `<speak><prosody rate="slow">${Array.from({ length: 40 }, (_, i) => `${sentence} <mark name="m${i}"/>`).join(' ')}</prosody></speak>`;
  const parts = splitSsml(doc, 300);
  t.ok(parts.length > 3, `${parts.length} parts`);
  t.ok(parts.every((p) => p.length <= 300 + '</prosody></speak>'.length), 'each near the limit');
  t.equal(spokenOf(parts), ssmlBillableText(parseSpeechText(doc)), 'every part parses; nothing lost, nothing twice');
  const marks = parts.flatMap((p) => parseSpeechText(p).items.filter((i) => i.kind === 'mark').map((i) => i.name));
  t.same(marks, Array.from({ length: 40 }, (_, i) => `m${i}`), 'every mark once, in order');
});

t.test('plain text: no cut inside a <break time/> tag, even one split across messages; a break alone is no piece', async (t) => {
  const c = new TextChunker();
  t.same(feed(c, ['مرحبا بكم <break time="1.']), [], 'the full stop in the unfinished tag is no sentence end');
  t.same(feed(c, ['5s"/> في خدمة صوت. ثم']), ['مرحبا بكم <break time="1.5s"/> في خدمة صوت.'], 'cut at the sentence end after the whole tag');
  const alone = new TextChunker();
  t.same(feed(alone, ['مرحبا بكم في خدمة صوت. <break time="1s"/>', '\n']), ['مرحبا بكم في خدمة صوت.'], 'a break with no words after it waits for them');
  t.equal(alone.flush(), ' <break time="1s"/>\n', 'at a flush it is a piece of its own (a pause, nothing billed)');
  const punctuation = new TextChunker();
  t.same(feed(punctuation, ['مرحبا بكم في خدمة صوت. ', '؟']), ['مرحبا بكم في خدمة صوت.']);
  t.equal(punctuation.flush(), null, 'punctuation alone is no piece');
});
