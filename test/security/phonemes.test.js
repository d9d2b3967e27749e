// Inline phoneme passages ([[ … ]]) over real sockets: the input that segfaulted espeak-ng inside
// the server (issue 28, finding 1) is a clean 400 / 40001 over HTTP and over the WebSocket, and the
// server (and the socket) go on serving; symbols a model cannot say are named; sawt-hts says the
// passage instead of dropping it (issue 34, item 3); a request whose audio is empty is a 400 and
// costs nothing (issue 28, finding 9).
import t from 'tap';
import { startServer, parseWav, pollUntil, SENTENCE } from '../helpers/server.js';
import { ready, wsConfig } from '../helpers/ws.js';

/** The input of the finding: `a:` × 200 in one passage. */
const CRASHER = `مرحبا [[${'a:'.repeat(200)}]] بكم في خدمة`;

const tts = (srv, headers, model, text, extra = {}) =>
  fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text, stability: 0.5, streaming: false, ...extra }) });

async function refused(t, res, message) {
  t.equal(res.status, 400, 'status 400');
  const body = await res.json();
  t.equal(body.errorCode, 40001, 'errorCode 40001');
  t.match(body.errorMessage, message);
  return body;
}

t.test('over HTTP: the crasher and its kin are 400 / 40001, not charged, and the server keeps serving', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const { account, headers } = await srv.client();
  const before = (await srv.balance(account.id)).balance;

  await refused(t, await tts(srv, headers, 'sawt-mini', CRASHER), /phoneme passage \[\[a:a:.*is 400 characters long; at most 200 per passage/);
  for (const streaming of [true, false]) {
    await refused(t, await tts(srv, headers, 'sawt-mini', `مرحبا [[${'a'.repeat(120)}]] بكم في خدمة`, { streaming }), /word of 120 phoneme symbols; at most 64 per word/);
  }
  await refused(t, await tts(srv, headers, 'sawt-mini', 'مرحبا [[ba:b$]] بكم في خدمة'), /'\$' is not a phoneme symbol .* sawt-mini/);
  await refused(t, await tts(srv, headers, 'sawt-mini', 'مرحبا [[_^_en hello]] بكم في خدمة'), /sawt-mini cannot say the phoneme '_\^_'/);
  const passages = Array.from({ length: 20 }, () => `[[${'ba: '.repeat(30).trim()}]]`).join(' و ');
  await refused(t, await tts(srv, headers, 'sawt-mini', `مرحبا ${passages} بكم`), /hold 1800 phoneme symbols; at most 1000 per text/);
  t.equal((await srv.balance(account.id)).balance, before, 'nothing charged for the refusals');

  const ok = await tts(srv, headers, 'sawt-mini', `مرحبا [[s'u:q ?al?a.dH'a:]] بكم في خدمة`);
  t.equal(ok.status, 200, 'a valid passage is spoken');
  t.ok(parseWav(Buffer.from(await ok.arrayBuffer())).data.length > 24000, 'with audio');
  t.ok((await srv.balance(account.id)).balance < before, 'and paid for');
});

t.test('over the WebSocket: the crasher is an error message and the connection stays usable', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const { key, account } = await srv.client();
  const c = await ready(srv, key.key);
  const before = (await srv.balance(account.id)).balance;
  c.send({ type: 'text', text: CRASHER, flush: true });
  const err = await c.until(() => c.errors()[0]);
  t.equal(err.errorCode, 40001);
  t.match(err.errorMessage, /phoneme passage .* at most 200 per passage/);
  t.same(c.audio(), [], 'no audio for it');
  t.equal(c.closeCode, null, 'the connection stays open');
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.messages.find((m) => m.isFinal));
  t.ok(c.pcmBytes() > 24000, 'the next text on the same connection is spoken');
  t.equal(c.errors().length, 1, 'no other error');
  await pollUntil('the spoken text paid for', async () => (await srv.balance(account.id)).balance < before);
  t.pass('only the spoken text is paid for');
  c.ws.close();
});

t.test('sawt-hts says a passage mapped onto its phones, and names what it cannot say', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const { account, headers } = await srv.client();
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  if (!(models.models ?? models).some((m) => m.model_id === 'sawt-hts')) return t.skip('sawt-hts is not installed');
  const voice = (await (await fetch(`${srv.api}/voices?model_id=sawt-hts`, { headers })).json()).voices?.[0]?.voice_id ?? 'fusha-ziad';
  const say = async (text) => {
    const res = await tts(srv, headers, 'sawt-hts', text, { voice_id: voice });
    t.equal(res.status, 200, `spoken: ${text}`);
    return parseWav(Buffer.from(await res.arrayBuffer())).data.length;
  };
  const without = await say('مرحبا بكم في خدمة');
  const withPassage = await say(`مرحبا [[s'u:q ?al?a.dH'a:]] بكم في خدمة`);
  t.ok(withPassage > without + 24000 * 2 * 0.3, `the passage adds audio (${without} → ${withPassage} bytes): it is not dropped`);

  const before = (await srv.balance(account.id)).balance;
  await refused(t, await tts(srv, headers, 'sawt-hts', 'مرحبا [[baN]] بكم في خدمة', { voice_id: voice }), /sawt-hts cannot say the phoneme 'N'/);
  t.equal((await srv.balance(account.id)).balance, before, 'not charged');
});

t.test('the issue\'s 0-sample input (`مرحبا [[aaaa…]] بكم…`) is 400 and costs nothing, over HTTP and the WebSocket', async (t) => {
  // Before: espeak's word buffer overflowed silently, the audio was 0 samples, the answer a 44-byte WAV, charged.
  const text = `مرحبا [[${'a'.repeat(190)}]] بكم في خدمة`;
  const srv = await startServer(t, { config: wsConfig() });
  const { account, headers, key } = await srv.client();
  const before = (await srv.balance(account.id)).balance;
  for (const streaming of [false, true]) await refused(t, await tts(srv, headers, 'sawt-mini', text, { streaming }), /at most 64 per word/);
  const c = await ready(srv, key.key);
  c.send({ type: 'text', text, flush: true });
  const err = await c.until(() => c.errors()[0]);
  t.equal(err.errorCode, 40001);
  t.same(c.audio(), [], 'no audio message');
  c.ws.close();
  t.equal((await srv.balance(account.id)).balance, before, 'nothing charged');
});

t.test('a NUL (or another control character) in the text is a space: the words after it are spoken, on both models', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const { headers } = await srv.client({ plan: 'enterprise', balance: '10' });
  const TEXT = 'مرحبا بكم في خدمة نهاية النص هنا';
  for (const model of ['sawt-mini', 'sawt-hts']) {
    const seconds = async (text) => {
      const res = await tts(srv, headers, model, text);
      t.equal(res.status, 200, `${model}: ${JSON.stringify(text.slice(0, 20))}…`);
      return parseWav(Buffer.from(await res.arrayBuffer())).data.length / 48000;
    };
    const plain = await seconds(TEXT);
    // espeak-ng read a NUL as the end of its text: a leading one gave 6 ms of audio, billed in full.
    for (const text of [`\u0000 ${TEXT}`, TEXT.replace('خدمة', 'خدمة \u0000'), TEXT.replace('بكم', 'بكم\u0000\u001f\u0085')]) {
      const s = await seconds(text);
      t.ok(s > plain * 0.9, `${model}: ${s.toFixed(2)} s of audio with the control characters, ${plain.toFixed(2)} s without`);
    }
  }
});
