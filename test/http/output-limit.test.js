// Bounded memory per request: a non-streaming WAV is spooled to the process's
// temp folder while it is generated (not held in memory) and sent with its
// Content-Length; a text whose estimated audio (the model's measured seconds per
// character) passes maxOutputSeconds is refused up front with 400 naming the limit;
// audio that passes it anyway is refused (a WAV: 400, nothing charged) or cut (a
// stream: charged for the words handed to the socket, "output cap" in the ledger).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tokens } from '@sawt/core';
import { LONG_TEXT, SENTENCE, defaultConfigPath, parseWav, startServer } from '../helpers/server.js';
import { leftoverFiles } from '../helpers/abort-client.js';

function config(maxOutputSeconds, { measured = true } = {}) {
  const c = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.maxOutputSeconds = maxOutputSeconds;
  // Without the model's measured rate nothing is refused up front: the cap applies to the audio itself.
  if (!measured) for (const m of c.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options.models) delete m.seconds_per_char;
  return c;
}

t.test('output cap, estimated up front: 400 naming the limit for a WAV and a stream, nothing charged', async (t) => {
  const srv = await startServer(t, { config: config(4) });
  const { account, headers } = await srv.client({ balance: '10' });
  for (const streaming of [false, true]) {
    const r = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: LONG_TEXT.repeat(3), stability: 0.5, streaming }) });
    t.equal(r.status, 400);
    t.same(await r.json(), { errorCode: 40001, errorMessage: 'The audio for this text would be longer than 4 seconds, the limit per request: send a shorter text (or several requests)' });
  }
  t.same(await srv.balance(account.id), { accountId: account.id, balance: 10e6, reserved: 0, available: 10e6 }, 'nothing charged or reserved');
});

t.test('output cap on the audio: 400 naming the limit for a WAV, a cut stream charged for what went out; WAV under it is whole', async (t) => {
  const srv = await startServer(t, { config: config(4, { measured: false }) });
  const { account, headers } = await srv.client({ balance: '10' });
  const tts = (text, streaming) => fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text, stability: 0.5, streaming }) });
  const before = await srv.balance(account.id);

  const long = await tts(LONG_TEXT.repeat(3), false);
  t.equal(long.status, 400);
  t.same(await long.json(), { errorCode: 40001, errorMessage: 'The audio for this text would be longer than 4 seconds, the limit per request: send a shorter text (or several requests)' });

  const stream = await tts(LONG_TEXT.repeat(3), true);
  t.equal(stream.status, 200, 'a stream starts');
  const got = await stream.arrayBuffer().then((b) => ({ bytes: b.byteLength }), (e) => ({ error: e }));
  t.ok(got.error || got.bytes <= 4 * 24000 * 2, `and is cut at the limit (${got.error ? 'connection reset' : `${got.bytes} bytes`})`);

  const short = await tts(SENTENCE, false);
  t.equal(short.status, 200);
  const body = Buffer.from(await short.arrayBuffer());
  t.equal(Number(short.headers.get('content-length')), body.length, 'Content-Length is the whole file');
  const wav = parseWav(body);
  t.equal(wav.data.length, body.length - 44, 'the header states the data length');
  t.ok(wav.data.length > 24000, 'real audio');

  const after = await srv.balance(account.id);
  t.equal(after.reserved, 0, 'nothing stays reserved');
  const ledger = await srv.app.get(tokens.wallet).ledger(account.id);
  const cut = ledger.filter((e) => e.kind === 'settle' && /^output cap after/.test(e.description ?? ''));
  t.equal(cut.length, 1, 'the cut stream is settled with "output cap" in the ledger');
  t.ok(cut[0].amount > 0 && cut[0].amount < [...LONG_TEXT.repeat(3).trim()].length * 100, `for part of its text (${cut[0].amount / 100} characters)`);
  t.equal(before.balance - after.balance, cut[0].amount + [...SENTENCE].length * 100, 'the cut stream and the delivered WAV are charged, the refused WAV not');
  t.same(leftoverFiles(path.join(srv.dataDir, 'tmp')), [], 'no spool file is left');
});

t.test('the WAV is spooled in the process folder while it is generated', async (t) => {
  const srv = await startServer(t, { config: config(900) });
  const { headers } = await srv.client({ balance: '10' });
  const res = fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: LONG_TEXT.repeat(6), stability: 0.5, streaming: false }) });
  let seen = [];
  for (let i = 0; i < 200 && seen.length === 0; i++) {
    seen = leftoverFiles(path.join(srv.dataDir, 'tmp')).filter((f) => f.endsWith('.pcm'));
    await new Promise((r) => setTimeout(r, 10));
  }
  t.equal(seen.length, 1, 'a spool file in <SAWT_DATA_DIR>/tmp/<process>/');
  const r = await res;
  t.equal(r.status, 200);
  await r.arrayBuffer();
  t.same(leftoverFiles(path.join(srv.dataDir, 'tmp')), [], 'removed once sent');
});
