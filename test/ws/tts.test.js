import t from 'tap';
import { tokens } from '@sawt/core';
import { SENTENCE, LONG_TEXT, pollUntil } from '../helpers/server.js';
import { startWsServer, connect, ready } from '../helpers/ws.js';

const srv = await startWsServer(t);
const { key, account } = await srv.client({ plan: 'enterprise', balance: '10' });

const finalAudio = (c) => () => c.audio().find((m) => m.isFinal);
/** The account's balance once nothing is reserved any more. */
const settled = (id) => pollUntil('the reservation to close', async () => { const b = await srv.balance(id); return b.reserved === 0 && b; }, 30_000);

t.test('init + text with flush gives 24 kHz audio, the last message isFinal, longer text gives more audio', async (t) => {
  const c = await ready(srv, key.key);
  t.same(c.messages[0], { type: 'connectionInitialized' });
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(finalAudio(c));
  const a = c.audio();
  t.ok(a.length >= 1, `${a.length} audio messages`);
  t.ok(a.every((m) => m.sampleRate === 24000), 'sampleRate 24000');
  t.ok(Buffer.from(a[0].audio, 'base64').length > 0, 'non-empty PCM');
  t.equal(a.filter((m) => m.isFinal).length, 1, 'one isFinal');
  t.ok(a[a.length - 1].isFinal, 'last is isFinal');
  t.equal(c.pcmBytes() % 2, 0, 'whole samples');
  t.ok(a.some((m) => m.alignment && m.alignment.chars.length === m.alignment.charStartTimesMs.length), 'alignment present');
  const shortBytes = c.pcmBytes();
  const d = await ready(srv, key.key);
  d.send({ type: 'text', text: LONG_TEXT, flush: true });
  await d.until(finalAudio(d));
  t.ok(d.pcmBytes() > shortBytes * 2, `long ${d.pcmBytes()} > 2 × short ${shortBytes}`);
  t.equal(c.errors().length + d.errors().length, 0, 'no errors');
  c.ws.close(); d.ws.close();
});

t.test('output_format pcm_16000 gives 16 kHz audio, about 2/3 the bytes of 24 kHz', async (t) => {
  const c24 = await ready(srv, key.key);
  c24.send({ type: 'text', text: LONG_TEXT, flush: true });
  await c24.until(finalAudio(c24));
  const c16 = await ready(srv, key.key, { output_format: 'pcm_16000' });
  c16.send({ type: 'text', text: LONG_TEXT, flush: true });
  await c16.until(finalAudio(c16));
  t.ok(c16.audio().every((m) => m.sampleRate === 16000));
  const ratio = c16.pcmBytes() / c24.pcmBytes();
  t.ok(ratio > 0.6 && ratio < 0.73, `ratio ${ratio.toFixed(3)}`);
  c24.ws.close(); c16.ws.close();
});

t.test('text arriving in pieces is generated at sentence ends and on flush, in order', async (t) => {
  const c = await ready(srv, key.key);
  const words = LONG_TEXT.split(' ');
  for (const w of words.slice(0, -1)) c.send({ type: 'text', text: w + ' ' });
  c.send({ type: 'text', text: words[words.length - 1], flush: true });
  await c.until(finalAudio(c));
  t.ok(c.audio().length >= 2, `${c.audio().length} audio messages`);
  t.ok(c.audio().at(-1).isFinal);
  t.equal(c.errors().length, 0);
  c.ws.close();
});

t.test('the key can come from the query, x_api_key in init, or a header', async (t) => {
  const q = await ready(srv, key.key);
  t.equal(q.messages[0].type, 'connectionInitialized', 'query');
  const i = connect(srv);
  await i.opened;
  i.send({ type: 'initConnection', voice_id: 'fusha-omar', x_api_key: key.key });
  t.equal((await i.until(() => i.messages[0])).type, 'connectionInitialized', 'x_api_key');
  const h = connect(srv, { headers: { 'x-api-key': key.key } });
  await h.opened;
  h.send({ type: 'initConnection', voice_id: 'fusha-omar' });
  t.equal((await h.until(() => h.messages[0])).type, 'connectionInitialized', 'x-api-key header');
  const b = connect(srv, { headers: { authorization: `Bearer ${key.key}` } });
  await b.opened;
  b.send({ type: 'initConnection', voice_id: 'fusha-omar' });
  t.equal((await b.until(() => b.messages[0])).type, 'connectionInitialized', 'bearer header');
  for (const c of [q, i, h, b]) c.ws.close();
});

t.test('missing or invalid key: error 40101, then close 1008', async (t) => {
  const c = connect(srv);
  await c.opened;
  c.send({ type: 'initConnection', voice_id: 'fusha-omar' });
  t.equal(await c.closed, 1008);
  t.equal(c.messages.length, 1);
  t.match(c.messages[0], { type: 'error', errorCode: 40101 });
  t.equal(c.messages[0].message, c.messages[0].errorMessage);
  const bad = connect(srv, { query: '?x-api-key=nope' });
  await bad.opened;
  t.equal(await bad.closed, 1008);
  t.match(bad.messages[0], { type: 'error', errorCode: 40101 });
});

t.test('a key restricted to other endpoints gets 40302', async (t) => {
  const k = await srv.createKey(account.id, { endpoints: ['tts'] });
  const c = connect(srv, { query: `?x-api-key=${k.key}` });
  await c.opened;
  await c.closed;
  t.match(c.messages[0], { type: 'error', errorCode: 40302 });
});

t.test('protocol errors are 40001 and keep the connection open', async (t) => {
  const c = connect(srv, { query: `?x-api-key=${key.key}` });
  await c.opened;
  c.send({ type: 'text', text: SENTENCE });
  await c.until(() => c.errors().length === 1);
  t.match(c.errors()[0], { errorCode: 40001 });
  c.send('{not json');
  await c.until(() => c.errors().length === 2);
  t.match(c.errors()[1], { errorCode: 40001 });
  c.send({ type: 'dance' });
  await c.until(() => c.errors().length === 3);
  t.match(c.errors()[2], { errorCode: 40001 });
  c.send({ type: 'initConnection', voice_id: 'fusha-omar', voice_settings: { speed: 3 } });
  await c.until(() => c.errors().length === 4);
  t.match(c.errors()[3], { errorCode: 40001, errorMessage: 'voice_settings.speed must be a number between 0.7 and 1.2' });
  t.match(c.errors()[3].errorMessage, /speed must be a number between 0.7 and 1.2/);
  c.send({ type: 'initConnection', voice_id: 'no-such-voice' });
  await c.until(() => c.errors().length === 5);
  t.match(c.errors()[4], { errorCode: 40401 });
  c.send({ type: 'initConnection', model_id: 'no-such-model', voice_id: 'fusha-omar' });
  await c.until(() => c.errors().length === 6);
  t.match(c.errors()[5], { errorCode: 40401 });
  c.send({ type: 'initConnection', voice_id: 'fusha-omar' });
  await c.until(() => c.messages.find((m) => m.type === 'connectionInitialized'));
  c.send({ type: 'initConnection', voice_id: 'fusha-omar' });
  await c.until(() => c.errors().length === 7);
  t.match(c.errors()[6], { errorCode: 40001 });
  c.send({ type: 'text', text: 'قصير', flush: true });
  await c.until(() => c.errors().length === 8);
  t.match(c.errors()[7], { errorCode: 40001, errorMessage: /at least 3 words/ });
  t.equal(c.ws.readyState, c.ws.OPEN, 'still open');
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(finalAudio(c));
  t.pass('still usable');
  c.ws.close();
});

t.test('clear drops buffered text: no reply and no audio for it', async (t) => {
  const { key: k2, account: a2 } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await ready(srv, k2.key);
  c.send({ type: 'text', text: 'هذا نص لن يقال أبدا' });
  c.send({ type: 'clear' });
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(finalAudio(c));
  const n = c.messages.length;
  const only = await ready(srv, key.key);
  only.send({ type: 'text', text: SENTENCE, flush: true });
  await only.until(finalAudio(only));
  const ratio = c.pcmBytes() / only.pcmBytes();
  t.ok(ratio > 0.95 && ratio < 1.05, `audio is that of the text sent after clear (ratio ${ratio.toFixed(3)})`);
  t.equal(10_000_000 - (await settled(a2.id)).balance, [...SENTENCE].length * 100, 'only the text after clear is charged');
  t.equal(c.errors().length, 0);
  // Messages come in order: a second flush's audio follows the first's with nothing of the cleared text between.
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.audio().filter((m) => m.isFinal).length === 2);
  const second = c.audio().slice(c.audio().findIndex((m) => m.isFinal) + 1).reduce((b, m) => b + Buffer.from(m.audio, 'base64').length, 0);
  t.ok(Math.abs(second / only.pcmBytes() - 1) < 0.05, `the next audio is the next flush's alone (${second} B, the sentence alone ${only.pcmBytes()} B; ${n} messages before)`);
  c.ws.close(); only.ws.close();
});

t.test('clear cancels generation in progress; only the words already sent are charged', async (t) => {
  const { key: k2, account: a2 } = await srv.client({ plan: 'enterprise', balance: '10' });
  const before = await srv.balance(a2.id);
  const c = await ready(srv, k2.key);
  c.send({ type: 'text', text: LONG_TEXT.repeat(4), flush: true });
  await c.until(() => c.audio().length >= 1);
  c.send({ type: 'clear' });
  // The next flush is spoken once the cleared piece stopped (a cancelled piece sends no isFinal).
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(finalAudio(c));
  t.equal(c.audio().filter((m) => m.isFinal).length, 1, 'one isFinal: the next flush\'s');
  const after = await settled(a2.id);
  const ledger = await srv.app.get(tokens.wallet).ledger(a2.id);
  t.ok(ledger.some((e) => e.kind === 'settle' && /^client clear after/.test(e.description ?? '')), 'the cleared piece was cut by the clear');
  const charged = before.balance - after.balance - [...SENTENCE].length * 100;
  t.ok(charged > 0 && charged < [...LONG_TEXT.repeat(4).trim()].length * 100, `the cancelled piece is charged for its delivered words only (${charged / 100} characters)`);
  c.ws.close();
});

t.test('closeConnection sends the remaining audio, then closes 1000', async (t) => {
  const c = await ready(srv, key.key);
  c.send({ type: 'text', text: LONG_TEXT, flush: true });
  c.send({ type: 'closeConnection' });
  t.equal(await c.closed, 1000);
  t.ok(c.audio().at(-1)?.isFinal, 'all audio arrived before the close');
});

t.test('billing: exactly chars × 0.0001 for the flushed text, nothing reserved', async (t) => {
  const { key: k2, account: a2 } = await srv.client({ plan: 'enterprise', balance: '10' });
  const before = await srv.balance(a2.id);
  const c = await ready(srv, k2.key);
  c.send({ type: 'text', text: LONG_TEXT, flush: true });
  await c.until(finalAudio(c));
  const after = await settled(a2.id);
  const chars = [...LONG_TEXT.trim()].length;
  t.equal(before.balance - after.balance, chars * 100, `${chars} chars charged`);
  t.equal(after.reserved, 0);
  c.ws.close();
});

t.test('a client that disconnects mid-generation leaves nothing reserved and pays for the delivered words only', async (t) => {
  const { key: k2, account: a2 } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await ready(srv, k2.key);
  c.send({ type: 'text', text: LONG_TEXT.repeat(4), flush: true });
  await c.until(() => c.audio().length >= 1);
  c.ws.terminate();
  const after = await settled(a2.id);
  const charged = 10_000_000 - after.balance;
  t.ok(charged > 0 && charged < [...LONG_TEXT.repeat(4).trim()].length * 100, `charged for the delivered words only (${charged / 100} characters)`);
});

t.test('free plan with an HTTP stream in flight gets 42901 on flush', async (t) => {
  const { key: k2, headers } = await srv.client({ plan: 'free', balance: '10' });
  const ctl = new AbortController();
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, {
    method: 'POST', headers, signal: ctl.signal,
    body: JSON.stringify({ voice_id: 'fusha-omar', stability: 0.5, streaming: true, text: LONG_TEXT.repeat(6) }),
  });
  t.equal(res.status, 200);
  const c = await ready(srv, k2.key);
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.errors().length);
  t.match(c.errors()[0], { type: 'error', errorCode: 42901 });
  t.equal(c.ws.readyState, c.ws.OPEN, 'still open');
  ctl.abort();
  await res.body?.cancel().catch(() => {});
  c.ws.close();
});

t.test('other upgrade paths are refused', async (t) => {
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/api/v1/elsewhere`);
  const err = await new Promise((resolve) => ws.on('error', resolve));
  t.match(err.message, /404/);
});
