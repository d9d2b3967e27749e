import t from 'tap';
import { startServer, parseWav, pcmStats, SENTENCE, LONG_TEXT } from '../helpers/server.js';

const srv = await startServer(t);
const { headers, account } = await srv.client({ plan: 'enterprise', balance: '10' });
const tts = (body, model = 'sawt-mini', h = headers) => fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers: h, body: JSON.stringify(body) });
const base = { voice_id: 'fusha-omar', stability: 0.5 };

t.test('non-streaming returns a complete 24 kHz mono PCM16 WAV with Content-Length', async (t) => {
  const res = await tts({ ...base, text: SENTENCE, streaming: false });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'audio/wav');
  t.equal(res.headers.get('cache-control'), 'no-cache');
  t.ok(res.headers.get('x-request-id'));
  const buf = Buffer.from(await res.arrayBuffer());
  t.equal(Number(res.headers.get('content-length')), buf.length, 'Content-Length matches the body');
  const wav = parseWav(buf);
  t.equal(wav.riff, 'RIFF');
  t.equal(wav.wave, 'WAVE');
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16 });
  t.equal(wav.riffSize, buf.length - 8);
  const s = pcmStats(wav.data);
  t.ok(s.seconds > 1, `speech lasts more than a second (${s.seconds.toFixed(2)} s)`);
  t.ok(s.rms > 500, `audio is not silent (rms ${s.rms.toFixed(0)})`);
});

t.test('streaming returns raw PCM16 with the interface headers, and longer text gives longer audio', async (t) => {
  const short = await tts({ ...base, text: SENTENCE, streaming: true });
  t.equal(short.status, 200);
  t.equal(short.headers.get('content-type'), 'audio/raw;codec=pcm16;rate=24000;channels=1');
  t.equal(short.headers.get('cache-control'), 'no-cache');
  t.equal(short.headers.get('connection'), 'keep-alive');
  t.notOk(short.headers.get('content-length'), 'streamed, no Content-Length');
  const a = pcmStats(Buffer.from(await short.arrayBuffer()));
  const long = await tts({ ...base, text: LONG_TEXT, streaming: true });
  const b = pcmStats(Buffer.from(await long.arrayBuffer()));
  t.ok(a.rms > 500 && b.rms > 500, 'both non-silent');
  t.ok(b.seconds > a.seconds * 2.5, `long text (${b.seconds.toFixed(2)} s) much longer than short (${a.seconds.toFixed(2)} s)`);
});

t.test('streaming sends audio in several chunks as sentences are generated', async (t) => {
  const res = await tts({ ...base, text: LONG_TEXT, streaming: true });
  const reader = res.body.getReader();
  let chunks = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks++;
    bytes += value.length;
  }
  t.ok(chunks >= 2, `received ${chunks} chunks`);
  t.equal(bytes % 2, 0, 'whole 16-bit samples');
});

t.test('speed changes duration proportionally', async (t) => {
  const dur = async (speed) => pcmStats(parseWav(Buffer.from(await (await tts({ ...base, text: LONG_TEXT, streaming: false, speed })).arrayBuffer())).data).seconds;
  const slow = await dur(0.7);
  const normal = await dur(1.0);
  const fast = await dur(1.2);
  t.ok(slow > normal && normal > fast, `0.7: ${slow.toFixed(2)} s, 1.0: ${normal.toFixed(2)} s, 1.2: ${fast.toFixed(2)} s`);
  const ratio = slow / fast;
  t.ok(ratio > 1.4 && ratio < 2.1, `slow/fast duration ratio ${ratio.toFixed(2)} near 1.2/0.7 = 1.71`);
});

t.test('voices sound different', async (t) => {
  const pcm = async (voice_id) => parseWav(Buffer.from(await (await tts({ voice_id, stability: 0.5, text: SENTENCE, streaming: false })).arrayBuffer())).data;
  const male = await pcm('fusha-omar');
  const female = await pcm('fusha-layla');
  t.notSame(male.subarray(0, 4000), female.subarray(0, 4000));
  // A female voice has a higher pitch: more zero crossings per second in voiced speech.
  const zc = (b) => {
    let z = 0;
    for (let i = 2; i < b.length; i += 2) if ((b.readInt16LE(i) >= 0) !== (b.readInt16LE(i - 2) >= 0)) z++;
    return z / (b.length / 2 / 24000);
  };
  t.ok(zc(female) > zc(male), `female ${zc(female).toFixed(0)} vs male ${zc(male).toFixed(0)} crossings/s`);
});

t.test('a successful synthesis charges exactly characters x cost per character', async (t) => {
  const before = await srv.balance(account.id);
  const res = await tts({ ...base, text: SENTENCE, streaming: false });
  await res.arrayBuffer();
  const after = await srv.balance(account.id);
  const chars = [...SENTENCE].length;
  t.equal(before.balance - after.balance, chars * 100, `${chars} chars x 0.0001 = ${(chars * 0.0001).toFixed(4)}`);
  t.equal(after.reserved, 0, 'nothing left reserved');
});

t.test('a client that disconnects mid-stream pays only for the words handed to the socket', async (t) => {
  const before = await srv.balance(account.id);
  const ac = new AbortController();
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ ...base, text: LONG_TEXT.repeat(6), streaming: true }), signal: ac.signal });
  const reader = res.body.getReader();
  await reader.read();
  ac.abort();
  // The server notices the closed socket and settles what went out.
  let after;
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await srv.balance(account.id);
    if (after.reserved === 0) break;
  }
  t.equal(after.reserved, 0, 'reservation closed');
  const charged = before.balance - after.balance;
  t.ok(charged > 0 && charged < [...LONG_TEXT.repeat(6).trim()].length * 100, `charged for part of the text (${charged / 100} characters)`);
});
