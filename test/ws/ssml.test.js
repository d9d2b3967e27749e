// SSML and pronunciation dictionaries on the WebSocket (issue 32), heard on the deterministic HTS
// voice: initConnection's text_type "ssml" joins the text messages into one SSML text (a tag split
// across messages waits for its end), markup is never read aloud nor billed, <mark> times come back
// in the audio messages, a dictionary named in initConnection is applied, and bad values are the
// documented errors.
import t from 'tap';
import { tokens } from '@sawt/core';
import { pollUntil } from '../helpers/server.js';
import { startWsServer, ready } from '../helpers/ws.js';
import { envelopeCorrelation, seconds } from '../ssml/listening.js';

const srv = await startWsServer(t);
const { key, account, headers } = await srv.client({ plan: 'enterprise', balance: '10' });
const MODEL = 'sawt-hts';
const costMicro = srv.app.get(tokens.models).get(MODEL).costPerCharMicro;
const PLAIN = 'مرحبا بكم في خدمة صوت للنطق العربي';

/** The account's balance once nothing is reserved any more. */
const settled = () => pollUntil('the reservation to close', async () => { const b = await srv.balance(account.id); return b.reserved === 0 && b; }, 30_000);

/** Opens a session on sawt-hts, sends the fragments (the last with flush) and waits for the final audio or an error. */
async function session(fragments, init = {}) {
  const c = await ready(srv, key.key, { model_id: MODEL, ...init });
  const initError = c.errors()[0];
  if (initError) return { c, initError };
  fragments.forEach((text, i) => c.send({ type: 'text', text, ...(i === fragments.length - 1 && { flush: true }) }));
  await c.until(() => c.audio().find((m) => m.isFinal) || c.errors().length);
  const pcm = Buffer.concat(c.audio().map((m) => Buffer.from(m.audio, 'base64')));
  return { c, pcm, marks: c.audio().flatMap((m) => m.marks ?? []), errors: c.errors() };
}

/** What a session costs: the spoken text's characters, charged once its pieces settled. */
async function charged(fn) {
  const before = await settled();
  const out = await fn();
  const after = await settled();
  return { out, micro: before.balance - after.balance };
}

/** `a` sounds like `b`: the same duration within 4 % and 20 ms RMS envelopes correlated above 0.9. */
function soundsLike(t, a, b, what) {
  const [da, db] = [seconds(a), seconds(b)];
  const r = envelopeCorrelation(a, b);
  t.ok(Math.abs(da - db) / db <= 0.04, `${what}: duration ${da.toFixed(3)} s vs ${db.toFixed(3)} s (within 4 %)`);
  t.ok(r > 0.9, `${what}: envelope correlation ${r.toFixed(3)} > 0.9`);
}

t.test('markup is never read aloud nor billed: <speak> fragments sound like the plain text and cost the same', async (t) => {
  const plain = await charged(() => session([PLAIN]));
  // Under the 50-character schedule until the flush: one piece each, as the plain text is.
  const ssml = await charged(() => session(['<speak><p><s>مرحبا بكم ', 'في خدمة صوت ', 'للنطق العربي</s></p></speak>'], { text_type: 'ssml' }));
  t.same(plain.out.errors, []);
  t.same(ssml.out.errors, []);
  soundsLike(t, ssml.out.pcm, plain.out.pcm, '<speak><p><s> fragments vs the plain text');
  t.equal(ssml.micro, [...PLAIN].length * costMicro, `charged ${ssml.micro / costMicro} characters: the spoken ones`);
  t.equal(ssml.micro, plain.micro, 'the same as the plain text');
  const chars = (s) => s.c.audio().flatMap((m) => m.alignment?.chars ?? []).join('');
  t.equal(chars(ssml.out), chars(plain.out), 'the alignment covers the spoken text as the plain text\'s does, not the markup');
  t.match(chars(ssml.out), /^مرحبا ?بكم/u);
  ssml.out.c.ws.close();
  plain.out.c.ws.close();
});

t.test('a <break> split across two messages waits for its end and adds its time', async (t) => {
  const split = await session(['<speak>مرحبا بكم في خدمة <break ti', 'me="1s"/> صوت للنطق العربي</speak>'], { text_type: 'ssml' });
  const whole = await session(['<speak>مرحبا بكم في خدمة <break time="1s"/> صوت للنطق العربي</speak>'], { text_type: 'ssml' });
  const none = await session(['<speak>مرحبا بكم في خدمة <break strength="none"/> صوت للنطق العربي</speak>'], { text_type: 'ssml' });
  t.same(split.errors, [], 'no error: the tag was read whole');
  soundsLike(t, split.pcm, whole.pcm, 'the split <break> vs the same break in one message');
  const added = seconds(split.pcm) - seconds(none.pcm);
  t.ok(Math.abs(added - 1) < 0.05, `the split 1 s break adds ${added.toFixed(3)} s`);
  // Plain text (no text_type): <break time/> is its one markup, honoured when split too.
  const plainSplit = await session(['مرحبا بكم في خدمة <break time="1.', '5s"/> صوت للنطق العربي']);
  const plainWhole = await session(['مرحبا بكم في خدمة <break time="1.5s"/> صوت للنطق العربي']);
  t.same(plainSplit.errors, []);
  soundsLike(t, plainSplit.pcm, plainWhole.pcm, 'plain text: the split <break> vs the same break in one message');
  t.ok(seconds(plainSplit.pcm) - seconds(none.pcm) > 1.4, `plain text: the 1.5 s break is heard (${seconds(plainSplit.pcm).toFixed(3)} s vs ${seconds(none.pcm).toFixed(3)} s without)`);
  for (const s of [split, whole, none, plainSplit, plainWhole]) s.c.ws.close();
});

t.test('<mark> times come back with the audio, in order, within it, timed like the alignment (from the start of the piece)', async (t) => {
  // Under the 50-character schedule until the flush: one piece.
  const s = await session(['<speak><mark name="start"/>مرحبا بكم ', '<mark name="a"/>في خدمة صوت ', '<break time="300ms"/><mark name="b"/>للنطق العربي<mark name="end"/></speak>'], { text_type: 'ssml' });
  t.same(s.errors, []);
  t.same(s.marks.map((m) => m.name), ['start', 'a', 'b', 'end'], 'every mark once, in order');
  const times = s.marks.map((m) => m.timeMs);
  t.equal(times[0], 0, 'a mark before any speech is at 0');
  for (let i = 1; i < times.length; i++) t.ok(times[i] > times[i - 1], `${s.marks[i].name} at ${times[i]} ms, after ${times[i - 1]} ms`);
  const ms = seconds(s.pcm) * 1000;
  t.ok(Math.abs(times[3] - ms) <= 1, `the last mark (${times[3]} ms) is at the end of the audio (${ms.toFixed(0)} ms)`);
  const message = s.c.audio().find((m) => m.marks?.some((k) => k.name === 'b'));
  t.ok(message.alignment?.chars.length > 0, 'a mark comes in an audio message, beside the alignment of the words read with it');

  // A sentence end cuts the text in two pieces: the second piece's marks count from its own start, as its alignment does.
  const two = await session(['<speak>مرحبا بكم في خدمة صوت. <mark name="second"/>للنطق ', 'العربي <mark name="last"/>الفصيح</speak>'], { text_type: 'ssml' });
  t.same(two.marks.map((m) => m.name), ['second', 'last']);
  t.equal(two.marks[0].timeMs, 0, 'the first mark of the second piece is at its start');
  const secondPiece = two.c.audio().slice(two.c.audio().findIndex((m) => m.marks?.[0]?.name === 'second'));
  const pieceMs = secondPiece.reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0) / 2 / 24;
  t.ok(two.marks[1].timeMs > 0 && two.marks[1].timeMs < pieceMs, `the last mark (${two.marks[1].timeMs} ms) falls within the second piece's audio (${pieceMs.toFixed(0)} ms)`);

  // A mark (and a pause) after the last words, arriving once they were cut: a piece of their own, nothing billed.
  const trailing = await charged(() => session(['<speak>مرحبا بكم في خدمة صوت. ', '<mark name="done"/><break time="500ms"/></speak>'], { text_type: 'ssml' }));
  t.same(trailing.out.errors, []);
  t.same(trailing.out.marks, [{ name: 'done', timeMs: 0 }], 'the mark comes back, at the start of its own piece');
  const audio = trailing.out.c.audio();
  const piece = audio.slice(audio.findIndex((m) => m.marks?.length));
  t.ok(piece.at(-1).isFinal, 'its piece ends the flush');
  t.equal(piece.reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0), 24000, 'its audio is the pause: 500 ms of 24 kHz PCM16');
  t.equal(trailing.micro, [...'مرحبا بكم في خدمة صوت.'].length * costMicro, 'only the words are billed');

  const plain = await session([PLAIN]);
  t.notOk(plain.c.audio().some((m) => 'marks' in m), 'no marks field without marks');
  for (const x of [s, two, plain, trailing.out]) x.c.ws.close();
});

t.test('a dictionary named in initConnection is applied; unknown or malformed locators are refused at initConnection', async (t) => {
  const res = await fetch(`${srv.api}/pronunciation-dictionaries`, {
    method: 'POST', headers, body: JSON.stringify({ name: 'اختصارات', rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }] }),
  });
  t.equal(res.status, 201);
  const dict = await res.json();
  const locators = [{ pronunciation_dictionary_id: dict.id }];
  const ruled = await session(['أعلنت WHO اليوم عن خطة جديدة'], { pronunciation_dictionary_locators: locators });
  const alias = await session(['أعلنت منظمة الصحة العالمية اليوم عن خطة جديدة']);
  const written = await session(['أعلنت WHO اليوم عن خطة جديدة']);
  t.same(ruled.errors, []);
  soundsLike(t, ruled.pcm, alias.pcm, 'the rule vs its alias');
  t.ok(Math.abs(seconds(ruled.pcm) - seconds(written.pcm)) / seconds(written.pcm) > 0.04, `unlike the written word: ${seconds(ruled.pcm).toFixed(3)} s vs ${seconds(written.pcm).toFixed(3)} s`);
  const ssml = await session(['<speak>أعلنت WHO اليوم ', 'عن خطة جديدة</speak>'], { text_type: 'ssml', pronunciation_dictionary_locators: locators });
  soundsLike(t, ssml.pcm, alias.pcm, 'the rule in SSML fragments vs its alias');
  for (const s of [ruled, alias, written, ssml]) s.c.ws.close();

  const refusals = [
    [[{ pronunciation_dictionary_id: 'no-such-dictionary' }], 40401, /no-such-dictionary/u],
    [[{ version_id: 'x' }], 40001, /pronunciation_dictionary_locators\[0\]\.pronunciation_dictionary_id is required/u],
    [{ pronunciation_dictionary_id: dict.id }, 40001, /must be an array/u],
    [Array.from({ length: 4 }, () => ({ pronunciation_dictionary_id: dict.id })), 40001, /at most 3/u],
  ];
  for (const [value, code, message] of refusals) {
    const r = await session([PLAIN], { pronunciation_dictionary_locators: value });
    t.equal(r.initError?.errorCode, code, `${JSON.stringify(value).slice(0, 60)}: ${code}`);
    t.match(r.initError?.errorMessage, message);
    t.notOk(r.c.messages.some((m) => m.type === 'connectionInitialized'), 'not initialized');
    r.c.ws.close();
  }
  const other = await srv.client({ balance: '1' });
  const theirs = await ready(srv, other.key.key, { model_id: MODEL, pronunciation_dictionary_locators: locators });
  t.equal(theirs.errors()[0]?.errorCode, 40401, 'another account\'s dictionary is not found');
  theirs.ws.close();
});

t.test('a dictionary keeps its version for the whole session: a PATCH during it changes new sessions only', async (t) => {
  const res = await fetch(`${srv.api}/pronunciation-dictionaries`, {
    method: 'POST', headers, body: JSON.stringify({ name: 'مثبت', rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }] }),
  });
  t.equal(res.status, 201);
  const dict = await res.json();
  const TEXT = 'أعلنت WHO اليوم عن خطة جديدة';
  const locators = [{ pronunciation_dictionary_id: dict.id }];
  const alias = await session(['أعلنت منظمة الصحة العالمية اليوم عن خطة جديدة']);
  const written = await session([TEXT]);

  const pinned = await session([TEXT], { pronunciation_dictionary_locators: locators });
  t.same(pinned.errors, []);
  soundsLike(t, pinned.pcm, alias.pcm, 'before the PATCH: the rule vs its alias');
  const patched = await fetch(`${srv.api}/pronunciation-dictionaries/${dict.id}`, { method: 'PATCH', headers, body: JSON.stringify({ remove_rules: ['WHO'] }) });
  t.equal(patched.status, 200);
  t.not((await patched.json()).version_id, dict.version_id, 'the PATCH made a new version');

  // The same session's next flush: the version it had at initConnection.
  const c = pinned.c;
  const before = c.audio().length;
  c.send({ type: 'text', text: TEXT, flush: true });
  await c.until(() => c.audio().slice(before).find((m) => m.isFinal) || c.errors().length);
  t.same(c.errors(), []);
  const later = Buffer.concat(c.audio().slice(before).map((m) => Buffer.from(m.audio, 'base64')));
  soundsLike(t, later, alias.pcm, 'after the PATCH, in the session: still the rule');

  // A new session reads the latest version: the rule is gone, the word is read as written.
  const fresh = await session([TEXT], { pronunciation_dictionary_locators: locators });
  t.same(fresh.errors, []);
  soundsLike(t, fresh.pcm, written.pcm, 'after the PATCH, a new session: the written word');
  t.ok(Math.abs(seconds(later) - seconds(fresh.pcm)) / seconds(fresh.pcm) > 0.04, `the pinned piece differs from the new session's: ${seconds(later).toFixed(3)} s vs ${seconds(fresh.pcm).toFixed(3)} s`);
  for (const s of [alias, written, pinned, fresh]) s.c.ws.close();
});

t.test('bad SSML is 40001 naming the tag and its line:column in the session\'s text; the session goes on', async (t) => {
  const s = await session(['<speak>مرحبا بكم\n', 'في <blink>خدمة</blink> صوت للنطق العربي</speak>'], { text_type: 'ssml' });
  t.equal(s.errors.length, 1);
  t.equal(s.errors[0].errorCode, 40001);
  t.match(s.errors[0].errorMessage, /^SSML: .*<blink>.* at 2:4 of the session's text$/u);
  s.c.send({ type: 'text', text: `<speak>${PLAIN}</speak>`, flush: true });
  await s.c.until(() => s.c.audio().find((m) => m.isFinal));
  t.ok(Buffer.from(s.c.audio().at(-1).audio, 'base64').length > 0 || s.c.audio().length > 1, 'audio for the next flush');
  s.c.ws.close();

  const badType = await session([PLAIN], { text_type: 'xml' });
  t.equal(badType.initError?.errorCode, 40001);
  t.equal(badType.initError?.errorMessage, 'text_type must be one of text, ssml');
  badType.c.ws.close();

  const short = await session(['<speak><prosody rate="slow"><emphasis>مرحبا</emphasis></prosody> <break time="2s"/></speak>'], { text_type: 'ssml' });
  t.equal(short.errors[0]?.errorCode, 40001);
  t.match(short.errors[0]?.errorMessage, /at least 3 words.*between the SSML tags/su, 'the flush\'s text rule counts the spoken words');
  short.c.ws.close();
});
