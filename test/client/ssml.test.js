// @sawt/client's WebSocket session with SSML against a real server: text_type and a dictionary
// locator in initConnection, SSML sent in fragments, <mark> times on the audio events (and the
// 'marks' listener); a refused initConnection rejects connect with the typed error.
import t from 'tap';
import WebSocket from 'ws';
import { SawtClient, NotFoundError, ValidationError } from '@sawt/client';
import { startServer } from '../helpers/server.js';
import { wsConfig } from '../helpers/ws.js';
import { seconds } from '../ssml/listening.js';

const srv = await startServer(t, { config: wsConfig() });
const { key } = await srv.client({ balance: '10' });
const sawt = new SawtClient({ baseUrl: srv.base, apiKey: key.key, WebSocket });

t.test('SSML fragments with a dictionary: marks on the audio events, the rule applied', async (t) => {
  const dict = await sawt.pronunciationDictionaries.create({ name: 'اختصارات', rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }] });
  const session = await sawt.connect({
    voice_id: 'fusha-omar', model_id: 'sawt-hts', text_type: 'ssml',
    pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }],
  });
  const heard = [];
  session.on('marks', (marks) => heard.push(...marks.map((m) => m.name)));
  await session.send('<speak>أعلنت <mark name="who"/>WHO ');
  await session.send('اليوم <mark name="plan"/>عن خطة جديدة</speak>', { flush: true });
  const events = [];
  for await (const e of session.untilFinal()) events.push(e);
  const marks = events.flatMap((e) => e.marks ?? []);
  t.same(marks.map((m) => m.name), ['who', 'plan'], 'the marks, in order, on the audio events');
  t.same(heard, ['who', 'plan'], 'and to the marks listener');
  t.ok(marks[1].timeMs > marks[0].timeMs, `${marks[0].timeMs} ms, then ${marks[1].timeMs} ms`);
  const pcm = Buffer.concat(events.map((e) => Buffer.from(e.audio)));
  const plain = await sawt.textToSpeech('sawt-hts', { voice_id: 'fusha-omar', stability: 0.5, output_format: 'pcm_24000', text: 'أعلنت منظمة الصحة العالمية اليوم عن خطة جديدة' });
  t.ok(Math.abs(seconds(pcm) / seconds(Buffer.from(plain)) - 1) <= 0.04, `the alias is read: ${seconds(pcm).toFixed(2)} s vs ${seconds(Buffer.from(plain)).toFixed(2)} s`);
  await session.close();
});

t.test('textToSpeechWithTimestamps: marks beside the alignment; streamed, spread over the chunks', async (t) => {
  const body = { voice_id: 'fusha-omar', stability: 0.5, text_type: 'ssml', text: '<speak>مرحبا بكم <mark name="a"/>في خدمة صوت<mark name="b"/> للنطق العربي</speak>' };
  const whole = await sawt.textToSpeechWithTimestamps('sawt-hts', body);
  t.same(whole.marks.map((m) => m.name), ['a', 'b']);
  t.ok(whole.marks[1].timeMs > whole.marks[0].timeMs);
  const streamed = [];
  for await (const c of sawt.streamTextToSpeechWithTimestamps('sawt-hts', body)) streamed.push(...(c.marks ?? []));
  t.same(streamed.map((m) => m.name), ['a', 'b']);
  const plain = await sawt.textToSpeechWithTimestamps('sawt-hts', { voice_id: 'fusha-omar', stability: 0.5, text: 'مرحبا بكم في خدمة صوت' });
  t.notOk('marks' in plain, 'no marks without marks');
});

t.test('connect rejects with the typed error of a refused initConnection', async (t) => {
  const badType = await sawt.connect({ voice_id: 'fusha-omar', text_type: 'xml' }).catch((e) => e);
  t.ok(badType instanceof ValidationError, badType.name);
  t.equal(badType.errorCode, 40001);
  const unknown = await sawt.connect({ voice_id: 'fusha-omar', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'nope' }] }).catch((e) => e);
  t.ok(unknown instanceof NotFoundError, unknown.name);
  t.equal(unknown.errorCode, 40401);
});
