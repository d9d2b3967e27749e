// SSML and <break> on POST /text-to-speech/{model} and …/with-timestamps, heard on the
// deterministic HTS voice: markup is never read aloud, a break adds its time, <sub> and say-as
// sound like the text they stand for, marks come back in order, billing counts the spoken
// characters, bad markup is 400 / 40001 with its place, limits are 400s naming them.
import t from 'tap';
import { tokens } from '@sawt/core';
import { trackF0 } from '@sawt/native';
import { charged as chargedTo, delayCalls, startServer, parseWav } from '../helpers/server.js';
import { injectFetch } from '../http/inject.js';
import { envelopeCorrelation, seconds } from './listening.js';

const srv = await startServer(t);
const fetch = injectFetch(srv);
const { headers, account } = await srv.client({ balance: '10' });
const MODEL = 'sawt-hts';
const costMicro = srv.app.get(tokens.models).get(MODEL).costPerCharMicro;
const base = { voice_id: 'fusha-omar', stability: 0.5, streaming: false };
const post = (path, body) => fetch(`${srv.api}/text-to-speech/${MODEL}${path}`, { method: 'POST', headers, body: JSON.stringify({ ...base, ...body }) });

/** The PCM of a request's WAV (200 asserted). */
async function speech(t, body) {
  const res = await post('', body);
  t.equal(res.status, 200, `200 for ${body.text.slice(0, 60)}`);
  if (res.status !== 200) t.comment(await res.text());
  return parseWav(Buffer.from(await res.arrayBuffer())).data;
}

/** `a` sounds like `b`: the same duration within 4 % and 20 ms RMS envelopes correlated above 0.9. */
function soundsLike(t, a, b, what) {
  const [da, db] = [seconds(a), seconds(b)];
  const r = envelopeCorrelation(a, b);
  t.ok(Math.abs(da - db) / db <= 0.04, `${what}: duration ${da.toFixed(3)} s vs ${db.toFixed(3)} s (within 4 %)`);
  t.ok(r > 0.9, `${what}: envelope correlation ${r.toFixed(3)} > 0.9`);
}

/** `a` does not sound like `b`: the duration differs by more than 4 % or the envelopes correlate at 0.9 or less. */
function soundsUnlike(t, a, b, what) {
  const [da, db] = [seconds(a), seconds(b)];
  const r = envelopeCorrelation(a, b);
  t.ok(Math.abs(da - db) / db > 0.04 || r <= 0.9, `${what}: duration ${da.toFixed(3)} s vs ${db.toFixed(3)} s, correlation ${r.toFixed(3)}`);
}

const charged = (fn) => chargedTo(t, srv, account.id, fn);

t.test('markup is never read aloud: <speak> text sounds like the plain text', async (t) => {
  const plain = await speech(t, { text: 'مرحبا بكم في خدمة صوت للنطق العربي.' });
  const ssml = await speech(t, { text: '<speak><p><s>مرحبا بكم في <lang xml:lang="ar">خدمة</lang> صوت للنطق العربي</s></p></speak>' });
  soundsLike(t, ssml, plain, '<speak><p><s><lang> around the text');
  const typed = await speech(t, { text: ' <speak xml:lang="ar">مرحبا بكم في <emphasis level="none">خدمة</emphasis> صوت للنطق العربي.</speak>', text_type: 'ssml' });
  soundsLike(t, typed, plain, 'text_type ssml, <emphasis level="none">');
});

t.test('a <break> adds its time, in SSML and in plain text', async (t) => {
  const none = await speech(t, { text: '<speak>مرحبا بكم في خدمة <break strength="none"/> صوت للنطق العربي</speak>' });
  const second = await speech(t, { text: '<speak>مرحبا بكم في خدمة <break time="1s"/> صوت للنطق العربي</speak>' });
  const added = seconds(second) - seconds(none);
  t.ok(Math.abs(added - 1) < 0.03, `a 1 s break adds ${added.toFixed(3)} s`);
  const plain = await speech(t, { text: 'مرحبا بكم في خدمة صوت للنطق العربي' });
  const half = await speech(t, { text: 'مرحبا بكم في خدمة <break time="500ms"/> صوت للنطق العربي' });
  const more = seconds(half) - seconds(plain);
  t.ok(more > 0.4 && more < 0.8, `a 500 ms break in plain text adds ${more.toFixed(3)} s (its time, and the phrase end before it)`);
  // The silence is there: the 500 ms around the break's place are quiet.
  t.ok(half.length > plain.length);
});

t.test('<sub alias> sounds like its alias and unlike the text it replaces', async (t) => {
  const sub = await speech(t, { text: '<speak>أعلنت <sub alias="منظمة الصحة العالمية">WHO</sub> خطتها الجديدة</speak>' });
  const alias = await speech(t, { text: 'أعلنت منظمة الصحة العالمية خطتها الجديدة' });
  const written = await speech(t, { text: 'أعلنت WHO خطتها الجديدة اليوم' });
  soundsLike(t, sub, alias, '<sub> vs its alias');
  soundsUnlike(t, sub, written, '<sub> vs the written word');
});

t.test('say-as telephone sounds like its digits; cardinal like the number', async (t) => {
  const phone = await speech(t, { text: '<speak>اتصل على <say-as interpret-as="telephone">501234567</say-as> الآن</speak>' });
  const digits = await speech(t, { text: 'اتصل على خمسة صفر واحد اثنان ثلاثة أربعة خمسة ستة سبعة الآن' });
  const cardinal = await speech(t, { text: '<speak>اتصل على <say-as interpret-as="cardinal">501234567</say-as> الآن</speak>' });
  soundsLike(t, phone, digits, 'telephone vs the digits');
  soundsUnlike(t, phone, cardinal, 'telephone vs the number');
});

t.test('with-timestamps: marks in order with increasing times, within the audio; alignment over the spoken text', async (t) => {
  const res = await post('/with-timestamps', { text: '<speak><mark name="start"/>مرحبا بكم <mark name="m1"/>في خدمة <break time="300ms"/><mark name="m2"/>صوت للنطق العربي<mark name="end"/></speak>' });
  t.equal(res.status, 200);
  const body = await res.json();
  const audio = parseWav(Buffer.from(body.audio_base64, 'base64')).data;
  const ms = seconds(audio) * 1000;
  t.same(body.marks.map((m) => m.name), ['start', 'm1', 'm2', 'end']);
  const times = body.marks.map((m) => m.timeMs);
  t.equal(times[0], 0, 'a mark before any speech is at 0');
  for (let i = 1; i < times.length; i++) t.ok(times[i] > times[i - 1], `mark ${body.marks[i].name} at ${times[i]} ms after ${times[i - 1]} ms`);
  t.ok(Math.abs(times[3] - ms) <= 1, `the last mark (${times[3]} ms) is at the end of the audio (${ms.toFixed(0)} ms)`);
  t.equal(body.alignment.chars.join(''), 'مرحبا بكم في خدمة صوت للنطق العربي', 'the alignment covers the spoken text, not the markup');
  const at = body.alignment.chars.join('').indexOf('في');
  t.ok(Math.abs(times[1] - body.alignment.charStartTimesMs[at]) <= 1, `m1 (${times[1]} ms) is where «في» starts (${body.alignment.charStartTimesMs[at]} ms)`);
  // A mark inside a sentence changes nothing in the audio.
  const plainAudio = await speech(t, { text: '<speak>مرحبا بكم في خدمة صوت للنطق العربي</speak>' });
  const markedRes = await post('', { text: '<speak>مرحبا بكم <mark name="x"/>في خدمة <mark name="y"/>صوت للنطق العربي</speak>' });
  t.same(parseWav(Buffer.from(await markedRes.arrayBuffer())).data, plainAudio, 'the same samples with and without the marks');
  // Streamed: the same marks, spread over the lines.
  const streamed = await post('/stream/with-timestamps', { text: '<speak>مرحبا بكم <mark name="a"/>في خدمة صوت<mark name="b"/> للنطق العربي</speak>' });
  const lines = (await streamed.text()).trim().split('\n').map((l) => JSON.parse(l));
  t.same(lines.flatMap((l) => l.marks ?? []).map((m) => m.name), ['a', 'b']);
  const plain = await (await post('/with-timestamps', { text: 'مرحبا بكم في خدمة صوت' })).json();
  t.notOk('marks' in plain, 'no marks field without marks');
});

t.test('with-timestamps: a mark on the first chunk comes back though that chunk was made while the wallet was still reserving', async (t) => {
  // The synthesis starts while the admission is on its way; a slow wallet lets the first chunk be
  // generated (and buffered) before the route has its stream.
  delayCalls(t, srv.app.get(tokens.admission), 'admit', 600);
  for (const path of ['/with-timestamps', '/stream/with-timestamps']) {
    const res = await post(path, { text: '<speak><mark name="start"/>مرحبا بكم <mark name="m1"/>في خدمة صوت</speak>' });
    t.equal(res.status, 200);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    t.same(lines.flatMap((l) => l.marks ?? []).map((m) => m.name), ['start', 'm1'], `${path}: both marks`);
  }
});

t.test('billing counts the spoken characters: text, aliases as spoken, never markup', async (t) => {
  const text = '<speak>مرحبا <break time="200ms"/>بكم في <sub alias="منظمة الصحة">WHO</sub> <say-as interpret-as="digits">123</say-as></speak>';
  const spoken = 'مرحبا بكم في منظمة الصحة 123';
  const { micro } = await charged(async () => (await post('', { text })).arrayBuffer());
  t.equal(micro, [...spoken].length * costMicro, `charged ${micro / costMicro} characters: those of «${spoken}»`);
  const plain = 'مرحبا بكم في <break time="1s"/>خدمة صوت';
  const p = await charged(async () => (await post('', { text: plain })).arrayBuffer());
  t.equal(p.micro, [...'مرحبا بكم في خدمة صوت'].length * costMicro, 'a plain text\'s <break> is not billed');
});

t.test('the 3-word / 10-character rule applies to the spoken text', async (t) => {
  const short = await post('', { text: '<speak><prosody rate="slow"><emphasis>مرحبا</emphasis></prosody> <break time="2s"/> <mark name="x"/></speak>' });
  t.equal(short.status, 400);
  const body = await short.json();
  t.equal(body.errorCode, 40001);
  t.match(body.errorMessage, /at least 3 words.*spoken text/);
  const ok = await post('', { text: '<speak><s>كلمة</s><s>كلمة</s><s>أخرى</s></speak>' });
  t.equal(ok.status, 200, 'three sentences of one word each: three spoken words (markup has none between them)');
});

t.test('bad SSML, limits: 400 / 40001 naming the place, the tag or the limit, and nothing charged', async (t) => {
  const cases = [
    ['<speak>مرحبا بكم في <break time="1s">صوت</speak>', /SSML: .*<break>.* at 1:\d+|SSML: .*1:\d+.*break/],
    ['<speak>مرحبا بكم\nفي <blink>صوت</blink> العربي</speak>', /<blink>.*2:4|2:4.*<blink>/],
    ['<speak>مرحبا بكم في <break time="11s"/> صوت العربي</speak>', /10 ?s|10000 ?ms/],
    ['<speak><prosody rate="x-fast">مرحبا بكم في خدمة صوت للنطق</prosody></speak>', null],
    ['<speak><prosody rate="400%">مرحبا بكم في خدمة صوت للنطق</prosody></speak>', /outside the rates sawt-hts can speak \(0\.3 to 3\)/],
  ];
  for (const [text, message] of cases) {
    const { out: res, micro } = await charged(() => post('', { text, speed: 1.2 }));
    if (message === null) {
      t.equal(res.status, 200, 'x-fast × 1.2 is within the model\'s rates');
      await res.arrayBuffer();
      continue;
    }
    const body = await res.json();
    t.same([res.status, body.errorCode], [400, 40001], text);
    t.match(body.errorMessage, message, body.errorMessage);
    t.equal(micro, 0, 'nothing charged');
  }
  const typed = await post('', { text: 'مرحبا بكم في خدمة صوت', text_type: 'ssml' });
  t.equal(typed.status, 400, 'text_type ssml without <speak>');
  const wrongType = await post('', { text: 'مرحبا بكم في خدمة صوت', text_type: 'html' });
  t.equal((await wrongType.json()).errorCode, 40001);
});

t.test('<phoneme> and [[x-sawt]] passages are spoken on sawt-hts; a symbol it cannot say is 400 naming it', async (t) => {
  const phoneme = await speech(t, { text: '<speak>زرنا <phoneme alphabet="ipa" ph="ʔarrijaːdˤ">الرياض</phoneme> في الصيف الماضي</speak>' });
  const without = await speech(t, { text: 'زرنا في الصيف الماضي' });
  t.ok(seconds(phoneme) > seconds(without) + 0.3, `the phoneme's word is heard (${seconds(phoneme).toFixed(3)} s vs ${seconds(without).toFixed(3)} s without it)`);
  const inline = await speech(t, { text: 'زرنا [[?arrija:dH]] في الصيف الماضي' });
  t.ok(seconds(inline) > seconds(without) + 0.3, `an inline [[x-sawt]] passage is heard too (${seconds(inline).toFixed(3)} s)`);
  t.ok(envelopeCorrelation(inline, phoneme) > 0.9, 'and sounds like the <phoneme> element it equals');
  const res = await post('', { text: '<speak>زرنا <phoneme alphabet="x-sawt" ph="x9x">الرياض</phoneme> في الصيف</speak>' });
  const body = await res.json();
  t.same([res.status, body.errorCode], [400, 40001]);
  t.match(body.errorMessage, /<phoneme> at 1:\d+: '9' is not a phoneme symbol/, body.errorMessage);
});

t.test('prosody: pitch, volume and rate change the audio as asked', async (t) => {
  const text = 'مرحبا بكم في خدمة صوت للنطق العربي';
  const plain = await speech(t, { text });
  const slow = await speech(t, { text: `<speak><prosody rate="50%">${text}</prosody></speak>` });
  const ratio = seconds(slow) / seconds(plain);
  t.ok(ratio > 1.7 && ratio < 2.3, `rate 50 % lasts ${ratio.toFixed(2)} × as long`);
  const quiet = await speech(t, { text: `<speak><prosody volume="-12dB">${text}</prosody></speak>` });
  const gain = 20 * Math.log10(rms(quiet) / rms(plain));
  t.ok(Math.abs(gain + 12) < 0.5, `volume -12dB: ${gain.toFixed(2)} dB`);
  const high = await speech(t, { text: `<speak><prosody pitch="+6st">${text}</prosody></speak>` });
  soundsLike(t, high, plain, 'a pitch shift keeps the timing');
  const shift = 12 * Math.log2((await medianF0(high)) / (await medianF0(plain)));
  t.ok(Math.abs(shift - 6) < 1.5, `pitch +6st: the median F0 rose ${shift.toFixed(2)} semitones`);
  // espeak-ng (sawt-mini) shifts its pitch too.
  const mini = async (body) => parseWav(Buffer.from(await (await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ ...base, ...body }) })).arrayBuffer())).data;
  const low = 12 * Math.log2((await medianF0(await mini({ text: `<speak><prosody pitch="-4st">${text}</prosody></speak>` }))) / (await medianF0(await mini({ text }))));
  t.ok(low < -2.5 && low > -5.5, `sawt-mini pitch -4st: the median F0 moved ${low.toFixed(2)} semitones`);
});

/** Median F0 (Hz) of the voiced frames of 24 kHz PCM. */
async function medianF0(pcm) {
  const f0 = [...(await trackF0(pcm, 24000))].filter((f) => f > 0).sort((a, b) => a - b);
  return f0[Math.floor(f0.length / 2)];
}

function rms(pcm) {
  let sum = 0;
  const n = pcm.length / 2;
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / n);
}

t.test('the OpenAI-compatible route takes text_type and pronunciation_dictionary_locators as extension fields', async (t) => {
  const openai = (body) => fetch(`${srv.base}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${headers['x-api-key']}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, voice: 'fusha-omar', response_format: 'pcm', ...body }) });
  const pcm = async (body) => {
    const res = await openai(body);
    t.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };
  const text = 'مرحبا بكم في خدمة صوت للنطق العربي';
  const plain = await pcm({ input: text });
  const ssml = await pcm({ input: `<speak>${text}</speak>`, text_type: 'ssml' });
  soundsLike(t, ssml, plain, 'OpenAI route: <speak> not read aloud');
  const paused = await pcm({ input: `<speak>مرحبا بكم <break time="2s"/> في خدمة صوت للنطق العربي</speak>` });
  t.ok(seconds(paused) > seconds(plain) + 1.8, `a 2 s break heard (${seconds(paused).toFixed(2)} s vs ${seconds(plain).toFixed(2)} s)`);
  const short = await pcm({ input: 'مرحبا' });
  t.ok(seconds(short) > 0.2, 'any text, as before: no 3-word minimum on this route');
  const bad = await openai({ input: '<speak>مرحبا <break></speak>' });
  const badBody = await bad.json();
  t.same([bad.status, badBody.error.code, badBody.error.param], [400, 40001, 'input']);
  t.match(badBody.error.message, /SSML: .*1:\d+/);
  const unknown = await openai({ input: text, pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'nope' }] });
  const unknownBody = await unknown.json();
  t.same([unknown.status, unknownBody.error.code, unknownBody.error.param, unknownBody.error.type], [404, 40401, 'pronunciation_dictionary_locators', 'not_found_error']);
  const wrong = await openai({ input: text, text_type: 'xml' });
  t.same([wrong.status, (await wrong.json()).error.param], [400, 'text_type']);
});

t.test('<lang xml:lang="en"> is read (Latin rules), volume silent is silence of the same length, a streamed response carries the break', async (t) => {
  const en = await speech(t, { text: '<speak>قال المذيع <lang xml:lang="en">good morning</lang> ثم بدأ النشرة</speak>' });
  const without = await speech(t, { text: '<speak>قال المذيع ثم بدأ النشرة</speak>' });
  t.ok(seconds(en) > seconds(without) + 0.4, `the English words are heard (${seconds(en).toFixed(2)} s vs ${seconds(without).toFixed(2)} s)`);
  const text = 'مرحبا بكم في خدمة صوت للنطق العربي';
  const plain = await speech(t, { text });
  const silent = await speech(t, { text: `<speak><prosody volume="silent">${text}</prosody></speak>` });
  t.equal(silent.length, plain.length, 'as long as the speech');
  t.equal(rms(silent), 0, 'and silent');
  const res = await post('', { text: `<speak>مرحبا بكم <break time="1500ms"/> في خدمة صوت للنطق العربي</speak>`, streaming: true });
  t.equal(res.status, 200);
  const pcm = Buffer.from(await res.arrayBuffer());
  // The longest run of zero samples is the break (at least its 1.5 s).
  let run = 0;
  let longest = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    run = pcm.readInt16LE(i) === 0 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  t.ok(longest / 24000 >= 1.5, `streamed: ${(longest / 24000).toFixed(3)} s of silence in one piece`);
});
