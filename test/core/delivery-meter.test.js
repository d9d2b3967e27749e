// What a cut-short synthesis is charged (DeliveryMeter): the words whose audio started before the
// cut, placed by the engine's word timings; each timing names the text word it reads, so a number
// read as several spoken words counts as one text word and the words after it are not charged early.
import t from 'tap';
import { DeliveryMeter } from '@sawt/core';

const RATE = 24000;
const chunk = (ms, words) => ({ samples: (ms * RATE) / 1000, words: words.map(([audioMs, sourceWord]) => ({ audioMs, ...(sourceWord !== undefined && { sourceWord }) })) });
const at = (ms) => (ms * RATE) / 1000;

t.test('a phone number read digit by digit: the words after it are charged only once their audio went out', async (t) => {
  // "اتصل" 0 ms, "0501234567" ten spoken words from 500 ms, "الآن" 3500 ms, "رجاء" 4000 ms.
  const text = 'اتصل 0501234567 الآن رجاء';
  const m = new DeliveryMeter(text, RATE);
  m.add(chunk(4500, [[0, 0], ...Array.from({ length: 10 }, (_, k) => [500 + k * 300, 1]), [3500, 2], [4000, 3]]));
  t.equal(m.charsFor(at(100)), 4, 'the first word only');
  t.equal(m.charsFor(at(1000)), 15, 'into the number: it and the word before');
  t.equal(m.charsFor(at(3400)), 15, 'still in the number: not the words after it');
  t.equal(m.charsFor(at(3600)), 20, '"الآن" started');
  t.equal(m.charsFor(at(4500)), text.length, 'the whole text');
});

t.test('without sourceWord the timings are matched to the words in order (as before)', async (t) => {
  const m = new DeliveryMeter('مرحبا بكم في خدمة', RATE);
  m.add(chunk(2000, [[0], [500], [1000], [1500]]));
  t.equal(m.charsFor(at(600)), 9);
  t.equal(m.charsFor(at(2000)), 17);
});

t.test('a text word nothing was spoken for (a dash alone) starts with the next spoken word', async (t) => {
  const m = new DeliveryMeter('قال - نعم', RATE);
  m.add(chunk(1000, [[0, 0], [600, 2]]));
  t.equal(m.charsFor(at(300)), 3, 'only "قال"');
  t.equal(m.charsFor(at(700)), 9, 'the dash and "نعم"');
});
