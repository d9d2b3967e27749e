// Bounded memory per request: a non-streaming WAV is spooled to the process's
// temp folder while it is generated (not held in memory) and sent with its
// Content-Length; audio past maxOutputSeconds is refused with 400 naming the
// limit (a stream under way is cut), and nothing is charged for it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LONG_TEXT, SENTENCE, defaultConfigPath, parseWav, startServer } from '../helpers/server.js';
import { leftoverFiles } from '../helpers/abort-client.js';

function config(maxOutputSeconds) {
  const c = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.maxOutputSeconds = maxOutputSeconds;
  return c;
}

t.test('output cap: 400 naming the limit, a cut stream, nothing charged; WAV under it is whole', async (t) => {
  const srv = await startServer(t, { config: config(4) });
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
  t.ok(before.balance - after.balance > 0 && before.balance - after.balance <= SENTENCE.length * 100, `only the delivered WAV is charged (${before.balance - after.balance})`);
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
