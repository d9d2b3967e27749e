// Issue 28 item 4, audio without paying: a piece or request cut short after audio went out
// (WebSocket clear, a dropped socket, an HTTP reset) is charged for the characters whose audio the
// server handed to the socket, rounded up to the whole word; nothing only when no audio went out.
// The ledger says who cut the stream. A WebSocket flush longer than an HTTP request may be is
// split into pieces of at most 5,000 characters, each charged; a text whose estimated audio passes
// the output cap is refused up front. Money is read from the wallet and its ledger.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { tokens } from '@sawt/core';
import { LONG_TEXT, SENTENCE, defaultConfigPath, startServer } from '../helpers/server.js';
import { connect, ready, startWsServer } from '../helpers/ws.js';

const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
const MINI = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options.models.find((m) => m.model_id === 'sawt-mini');
const PRICE = 100; // micro-units per character on sawt-mini (cost_per_char 0.0001)
const RATE = 24000;
const chars = (s) => [...s.trim()].length;
/** About 1,500 characters: a couple of minutes of audio, several megabytes of PCM. */
const TEXT = Array(6).fill(LONG_TEXT).join(' ');

/** The account's ledger rows of one kind (oldest first), once nothing is left reserved. */
async function closed(srv, accountId) {
  // Until nothing is reserved and the reservation was closed (a settle or release row): on a busy
  // machine the server may notice the cut after the client's last read.
  const ledgerOf = async () => (await srv.app.get(tokens.wallet).ledger(accountId)).reverse();
  for (let i = 0; i < 1200; i++) {
    if ((await srv.balance(accountId)).reserved === 0 && (await ledgerOf()).some((e) => e.kind === 'settle' || e.kind === 'release')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const ledger = await ledgerOf();
  return { settles: ledger.filter((e) => e.kind === 'settle'), releases: ledger.filter((e) => e.kind === 'release'), balance: await srv.balance(accountId) };
}

/** Streams TEXT over a WebSocket and calls `cut(client)` once 80 % of its estimated audio arrived. */
async function cutAt80(t, srv, key, cut) {
  const c = await ready(srv, key, { model_id: 'sawt-mini' });
  const target = 0.8 * chars(TEXT) * MINI.seconds_per_char * RATE * 2;
  c.send({ type: 'text', text: TEXT, flush: true });
  await c.until(() => c.pcmBytes() >= target || c.messages.some((m) => m.isFinal || m.type === 'error'), 120_000);
  t.notOk(c.messages.some((m) => m.isFinal), 'the cut came before the last audio');
  const received = c.pcmBytes() / 2 / RATE;
  cut(c);
  return { c, received };
}

t.test('WebSocket: clear at ~80 % of the audio is charged for the delivered words', async (t) => {
  const srv = await startWsServer(t);
  const { account, key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const { c, received } = await cutAt80(t, srv, key.key, (c) => c.send({ type: 'clear' }));
  const { settles, balance } = await closed(srv, account.id);
  c.ws.close();
  t.equal(settles.length, 1, 'one settle');
  const charged = settles[0].amount / PRICE;
  t.ok(charged > 0 && charged < chars(TEXT), `charged for part of the text: ${charged} of ${chars(TEXT)} characters (${received.toFixed(1)} s received)`);
  t.ok(charged >= 0.6 * chars(TEXT), 'at least the characters of the audio the client received');
  t.match(settles[0].description, /^client clear after [\d.]+ s of audio: \d+ of \d+ characters delivered$/, 'the ledger says the client cleared');
  t.equal(balance.reserved, 0);
  t.equal(10e6 - balance.balance, settles[0].amount, 'the wallet paid exactly the settle');
  t.equal((await srv.app.get(tokens.apiKeys).get(key.id)).usedChars, charged, "the key's quota counts only the charged characters");
});

t.test('WebSocket: a socket dropped at ~80 % of the audio is charged for the delivered words', async (t) => {
  const srv = await startWsServer(t);
  const { account, key } = await srv.client({ plan: 'enterprise', balance: '10' });
  await cutAt80(t, srv, key.key, (c) => c.ws.terminate());
  const { settles, balance } = await closed(srv, account.id);
  t.equal(settles.length, 1, 'one settle');
  const charged = settles[0].amount / PRICE;
  t.ok(charged >= 0.6 * chars(TEXT) && charged < chars(TEXT), `charged for part of the text: ${charged} of ${chars(TEXT)}`);
  t.match(settles[0].description, /^client disconnected after/, 'the ledger says the client disconnected');
  t.equal(10e6 - balance.balance, settles[0].amount);
});

/** POST a WAV request with a raw socket; `onBody(bytesSoFar, contentLength, req)` may cut it. */
function rawTts(srv, headers, body, onResponse) {
  return new Promise((resolve) => {
    const req = request(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers }, (res) => onResponse(res, req, resolve));
    req.on('error', () => resolve('reset'));
    req.end(JSON.stringify(body));
  });
}

t.test('HTTP: a WAV reset after part of its body is charged for the part handed to the socket', async (t) => {
  const srv = await startServer(t);
  const { account, headers } = await srv.client({ balance: '10' });
  const text = Array(2).fill(TEXT).join(' ');
  let read = 0;
  let length = 0;
  await rawTts(srv, headers, { voice_id: 'fusha-omar', text, stability: 0.5, streaming: false }, (res, req, resolve) => {
    t.equal(res.statusCode, 200);
    length = Number(res.headers['content-length']);
    res.on('data', (d) => {
      read += d.length;
      if (read >= length * 0.3) {
        req.destroy();
        resolve('cut');
      }
    });
  });
  const { settles, releases, balance } = await closed(srv, account.id);
  t.equal(settles.length, 1, `one settle (releases: ${JSON.stringify(releases.map((r) => r.description))}, read ${read} of ${length})`);
  const charged = settles[0].amount / PRICE;
  t.ok(charged > 0 && charged < chars(text), `charged ${charged} of ${chars(text)} characters for ${read} of ${length} bytes read`);
  t.ok(charged >= 0.25 * chars(text), 'at least the characters of the audio the client read');
  t.match(settles[0].description, /^client disconnected after/);
  t.equal(10e6 - balance.balance, settles[0].amount);
});

t.test('HTTP: a streamed MP3 reset after part of its body is charged for the encoded audio handed to the socket', async (t) => {
  const srv = await startServer(t);
  const { account, headers } = await srv.client({ balance: '10' });
  const text = Array(2).fill(TEXT).join(' ');
  // 64 kbit/s: 8,000 bytes a second of audio; the cut comes after ~10 % of the estimated length.
  const estimate = chars(text) * MINI.seconds_per_char * 8000;
  let read = 0;
  let type = '';
  await rawTts(srv, headers, { voice_id: 'fusha-omar', text, stability: 0.5, streaming: true, output_format: 'mp3_44100_64' }, (res, req, resolve) => {
    t.equal(res.statusCode, 200);
    type = res.headers['content-type'];
    res.on('data', (d) => {
      read += d.length;
      if (read >= estimate * 0.1) {
        req.destroy();
        resolve('cut');
      }
    });
    res.on('end', () => resolve('whole'));
  });
  t.equal(type, 'audio/mpeg');
  const { settles, balance } = await closed(srv, account.id);
  t.equal(settles.length, 1, 'one settle');
  const charged = settles[0].amount / PRICE;
  t.ok(charged > 0 && charged < chars(text), `charged ${charged} of ${chars(text)} characters for ${read} MP3 bytes read (about ${Math.round(estimate)} in all)`);
  t.ok(charged >= 0.05 * chars(text), 'at least about the characters of the audio the client read');
  t.match(settles[0].description, /^client disconnected after/, 'the ledger says the client disconnected');
  t.equal(10e6 - balance.balance, settles[0].amount, 'the wallet paid exactly the settle');
});

t.test('HTTP: a request left before any audio went out is not charged', async (t) => {
  const srv = await startServer(t);
  const { account, headers } = await srv.client({ balance: '10' });
  const ac = new AbortController();
  const res = fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: Array(3).fill(TEXT).join(' '), stability: 0.5, streaming: false }), signal: ac.signal });
  // The WAV is still being generated (several seconds of work): no byte of it has gone out.
  setTimeout(() => ac.abort(), 300);
  await res.then((r) => r.arrayBuffer()).catch(() => {});
  const { settles, releases, balance } = await closed(srv, account.id);
  t.same(settles, [], 'no settle');
  t.match(releases.at(-1).description, /^client disconnected before any audio was delivered$/);
  t.equal(balance.balance, 10e6, 'the wallet is whole');
});

t.test('WebSocket: a 10,500-character flush is split into pieces of at most 5,000, each charged', async (t) => {
  const srv = await startWsServer(t);
  const { account, key } = await srv.client({ plan: 'enterprise', balance: '10' });
  let text = '';
  while (chars(text) < 10_500) text += `${LONG_TEXT} `;
  text = [...text].slice(0, 10_500).join('').replace(/\S*$/u, '').trim();
  const c = await ready(srv, key.key, { model_id: 'sawt-mini' });
  c.send({ type: 'text', text, flush: true });
  await c.until(() => c.messages.some((m) => m.isFinal || m.type === 'error'), 300_000);
  t.same(c.errors(), [], 'no error');
  c.ws.close();
  const { settles } = await closed(srv, account.id);
  t.equal(settles.length, 3, 'three pieces');
  t.ok(settles.every((s) => s.amount / PRICE <= 5000 && s.amount > 0), `each at most 5,000 characters: ${settles.map((s) => s.amount / PRICE).join(', ')}`);
  const total = settles.reduce((n, s) => n + s.amount / PRICE, 0);
  t.ok(total <= chars(text) && total >= chars(text) - 4, `together the whole text (${total} of ${chars(text)}; the spaces at the cuts are not charged)`);
  t.same(settles.map((s) => s.description), [null, null, null], 'each piece delivered whole');
  t.equal(new Set(settles.map((s) => s.requestId)).size, 3, 'one request id per piece');
});

t.test('a text whose estimated audio passes the output cap is refused up front', async (t) => {
  const capped = JSON.parse(JSON.stringify(config));
  capped.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.maxOutputSeconds = 60;
  const srv = await startServer(t, { config: capped });
  const { account, headers } = await srv.client({ balance: '10' });
  for (const streaming of [false, true]) {
    const r = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: TEXT, stability: 0.5, streaming }) });
    t.equal(r.status, 400, `${streaming ? 'stream' : 'WAV'}: 400 before any audio`);
    t.same(await r.json(), { errorCode: 40001, errorMessage: 'The audio for this text would be longer than 60 seconds, the limit per request: send a shorter text (or several requests)' });
  }
  const ok = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false }) });
  t.equal(ok.status, 200, 'a short text passes');
  await ok.arrayBuffer();
  const { settles } = await closed(srv, account.id);
  t.equal(settles.length, 1, 'only the short text is charged');
});

t.test('WebSocket: a piece cleared at once is closed as "client clear"; the next text is charged in full', async (t) => {
  const srv = await startWsServer(t);
  const { account, key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = connect(srv, { query: `?x-api-key=${encodeURIComponent(key.key)}` });
  await c.opened;
  c.send({ type: 'initConnection', voice_id: 'fusha-omar', model_id: 'sawt-mini' });
  await c.until(() => c.messages.find((m) => m.type === 'connectionInitialized'));
  c.send({ type: 'text', text: TEXT, flush: true });
  c.send({ type: 'clear' });
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.messages.some((m) => m.isFinal), 60_000);
  c.ws.close();
  const { settles, releases } = await closed(srv, account.id);
  const cleared = [...settles, ...releases].filter((e) => /client clear/.test(e.description ?? ''));
  t.ok(cleared.length >= 1, 'the cleared piece is closed with the reason "client clear"');
  t.ok(settles.some((s) => s.description === null && s.amount === chars(SENTENCE) * PRICE), 'the next text charged in full');
});
