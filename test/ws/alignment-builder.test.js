// Alignment of WebSocket audio messages, without a server: the engine's word timings of each chunk
// (audioMs from the chunk's start) become per-character start times and durations, matched in order
// to the words of the piece text, relative to the start of the piece's audio.
import t from 'tap';
import { AlignmentBuilder } from '@sawt/plugin-transport-ws';

const RATE = 24000;
const chunk = (ms, words) => ({ segment: 0, segmentEnd: false, samples: (ms * RATE) / 1000, words: words.map((audioMs) => ({ textOffset: 0, length: 0, audioMs })) });

t.test('each word spreads its time (up to the next word, or the chunk end) evenly over its characters', async (t) => {
  const a = new AlignmentBuilder('مرحبا بكم في خدمة', RATE);
  a.add(chunk(1000, [0, 400]));
  t.same(a.take(), {
    chars: ['م', 'ر', 'ح', 'ب', 'ا', ' ', 'ب', 'ك', 'م'],
    charStartTimesMs: [0, 80, 160, 240, 320, 400, 400, 600, 800],
    charDurationsMs: [80, 80, 80, 80, 80, 0, 200, 200, 200],
  }, '"مرحبا" 0–400 ms (80 ms a letter), a space of no duration, "بكم" 400–1000 ms');
  t.equal(a.take(), null, 'taken once');

  // The next chunk starts 1000 ms into the piece: its times count from there.
  a.add(chunk(500, [100]));
  t.same(a.take(), { chars: ['ف', 'ي'], charStartTimesMs: [1100, 1300], charDurationsMs: [200, 200] }, 'no space before the first word of a message');
});

t.test('a chunk without words adds time but no characters', async (t) => {
  const a = new AlignmentBuilder('أهلا وسهلا', RATE);
  a.add(chunk(250, []));
  t.equal(a.take(), null);
  a.add(chunk(500, [50, 250]));
  const al = a.take();
  t.same(al.chars.join(''), 'أهلا وسهلا', 'the words of the text, a space between them');
  t.equal(al.charStartTimesMs[0], 300, 'the first word 250 + 50 ms into the piece');
  t.equal(al.charStartTimesMs[5], 500, 'the second at 250 + 250 ms');
  t.same(al.charDurationsMs.slice(0, 4), [50, 50, 50, 50], '"أهلا": 200 ms over 4 letters');
  t.same(al.charDurationsMs.slice(5), [50, 50, 50, 50, 50], '"وسهلا": the 250 ms to the chunk end over 5 letters');
});

t.test('timings of several chunks before a take come out together, in order', async (t) => {
  const a = new AlignmentBuilder('واحد اثنان ثلاثة', RATE);
  a.add(chunk(300, [0]));
  a.add(chunk(300, [0, 150]));
  const al = a.take();
  t.same(al.chars.join(''), 'واحد اثنان ثلاثة');
  t.same(al.charStartTimesMs.filter((_, i) => al.chars[i] === ' '), [300, 450], 'each space where the next word starts');
  t.ok(al.charStartTimesMs.every((v, i) => i === 0 || v >= al.charStartTimesMs[i - 1]), 'start times never go back');
});

t.test('engine words beyond the text are ignored; text words the engine never reported get no timings', async (t) => {
  const more = new AlignmentBuilder('كلمة واحدة', RATE);
  more.add(chunk(600, [0, 200, 400]));
  t.same(more.take().chars.join(''), 'كلمة واحدة', 'a third engine word has no text word');
  const fewer = new AlignmentBuilder('ثلاث كلمات هنا', RATE);
  fewer.add(chunk(600, [0]));
  const al = fewer.take();
  t.same(al.chars.join(''), 'ثلاث', 'only the reported word');
  t.same(al.charDurationsMs, [150, 150, 150, 150], 'it lasts to the chunk end');
  t.equal(new AlignmentBuilder('   ', RATE).take(), null, 'blank text: nothing');
});

t.test('durations follow the sample rate of the stream', async (t) => {
  const a = new AlignmentBuilder('نعم', 16000);
  a.add({ segment: 0, segmentEnd: true, samples: 4800, words: [{ textOffset: 0, length: 3, audioMs: 0 }] });
  t.same(a.take(), { chars: ['ن', 'ع', 'م'], charStartTimesMs: [0, 100, 200], charDurationsMs: [100, 100, 100] }, '4800 samples at 16 kHz: 300 ms');
});

t.test('a spoken word names the text word it reads: a number read as several words is timed as one word, a dash alone as none', async (t) => {
  const sourced = (ms, words) => ({ ...chunk(ms, []), words: words.map(([audioMs, sourceWord]) => ({ textOffset: 0, length: 0, audioMs, sourceWord })) });
  const a = new AlignmentBuilder('رقم 12 - تم', RATE, { exact: true });
  // "رقم" 0 ms; "12" read as "اثنا عشر" (two spoken words, 200 and 500 ms); "-" unspoken; "تم" 800 ms.
  a.add(sourced(1000, [[0, 0], [200, 1], [500, 1], [800, 3]]));
  t.same(a.finish(), {
    chars: ['ر', 'ق', 'م', ' ', '1', '2', ' ', '-', ' ', 'ت', 'م'],
    charStartTimesMs: [0, 67, 133, 200, 200, 500, 800, 800, 800, 800, 900],
    charDurationsMs: [67, 66, 67, 0, 300, 300, 0, 0, 0, 100, 100],
  }, '"12" spans both of its spoken words (200–800 ms); "-" at the next word\'s start, 0 ms');
});
