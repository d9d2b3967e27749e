// An out-of-tree speech back end (test/fixtures/plugins/formant-voice, loaded by path) on the
// back-end contract: the catalog lists its model and voices, it speaks over HTTP and the WebSocket,
// billed at its own price and limited like the built-in models; its failures are 500 and 503
// answers, never a crash; a back end made for another contract version fails the boot.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createSawt, tokens } from '@sawt/core';
import { parseWav, pcmStats, repoRoot, startServer, tempDir } from '../helpers/server.js';
import { connect, wsConfig } from '../helpers/ws.js';
import { checkedInjectFetch } from '../helpers/inject.js';

const FORMANT = path.join(repoRoot, 'test/fixtures/plugins/formant-voice/index.js');
const TEXT = 'قال الولد إن الطيور تطير فوق البيوت الجميلة.';
const configWith = (options = {}) => {
  const config = wsConfig();
  config.plugins.push({ resolve: FORMANT, options: { failWord: 'خطأ', stallWord: 'انتظر', silentWord: 'صمت', chunkTimeoutMs: 1500, ...options } });
  return config;
};

const srv = await startServer(t, { config: configWith() });
// HTTP requests through fastify's inject() (no socket needed); the WebSocket test connects for real.
const fetch = checkedInjectFetch(t, srv);
const { account, headers } = await srv.client();
const tts = (body, h = headers) => fetch(`${srv.api}/text-to-speech/formant-1`, { method: 'POST', headers: h, body: JSON.stringify({ voice_id: 'formant-nour', text: TEXT, stability: 0.5, streaming: false, ...body }) });

t.test('the catalog lists the plugin\'s model with its price and its voices', async (t) => {
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  const model = models.find((m) => m.model_id === 'formant-1');
  t.ok(model, 'GET /models lists formant-1');
  t.equal(model.default_voice_id, 'formant-nour');
  const voices = await (await fetch(`${srv.api}/voices?model_id=formant-1`, { headers })).json();
  const ids = (voices.voices ?? voices).map((v) => v.voice_id);
  t.ok(ids.includes('formant-nour') && ids.includes('formant-adel'), `its voices: ${ids.join(', ')}`);
});

t.test('HTTP: a WAV that ffprobe decodes, audible, charged at the plugin\'s price with a ledger entry', async (t) => {
  const before = await srv.balance(account.id);
  const res = await tts({});
  t.equal(res.status, 200);
  const body = Buffer.from(await res.arrayBuffer());
  const wav = parseWav(body);
  t.equal(wav.fmt.sampleRate, 24000, 'resampled from the back end\'s 16 kHz to the request\'s rate');
  const stats = pcmStats(wav.data);
  t.ok(stats.seconds > 1 && stats.rms > 300, `${stats.seconds.toFixed(2)} s, RMS ${Math.round(stats.rms)}`);
  const file = path.join(tempDir(t), 'formant.wav');
  writeFileSync(file, body);
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', file], { encoding: 'utf8' }));
  t.equal(probe.streams[0].codec_name, 'pcm_s16le');
  const after = await srv.balance(account.id);
  const chars = [...TEXT].length;
  t.equal(before.balance - after.balance, chars * 50, `${chars} characters × 0.00005`);
  const ledger = await srv.app.get(tokens.wallet).ledger(account.id);
  const reserve = ledger.find((e) => e.kind === 'reserve' && /formant-1/.test(e.description ?? ''));
  t.ok(reserve, `reserved: ${reserve?.description}`);
  t.ok(ledger.some((e) => e.kind === 'settle' && e.reservationId === reserve?.reservationId), 'and settled');
});

t.test('WebSocket: audio messages for a flush, the last isFinal', async (t) => {
  const c = connect(srv, { query: `?x-api-key=${encodeURIComponent(headers['x-api-key'])}` });
  await c.opened;
  c.send({ type: 'initConnection', voice_id: 'formant-adel', model_id: 'formant-1' });
  await c.until(() => c.messages.find((m) => m.type === 'connectionInitialized' || m.type === 'error'));
  t.same(c.errors(), [], 'initialized');
  c.send({ type: 'text', text: TEXT, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  t.same(c.errors(), []);
  t.ok(c.pcmBytes() > 24000 * 2, `${c.pcmBytes()} bytes of 24 kHz PCM`);
  c.ws.close();
});

t.test('limited like the rest: a second request on the free plan while one runs is 429 / 42901', async (t) => {
  const free = await srv.client({ plan: 'free' });
  const slow = tts({ text: 'انتظر قليلا يا صديقي العزيز.' }, free.headers);
  // The first holds the plan's one slot until the back end's chunk timeout.
  await new Promise((r) => setTimeout(r, 300));
  const second = await tts({}, free.headers);
  t.equal(second.status, 429);
  t.equal((await second.json()).errorCode, 42901);
  const first = await slow;
  t.equal(first.status, 503, 'a back end that sends nothing in time: 503');
  t.equal((await first.json()).errorCode, 50001);
});

t.test('a failing back end is a 500 answer and the server keeps serving', async (t) => {
  const res = await tts({ text: 'هذا خطأ في الصوت يا صديقي.' });
  t.equal(res.status, 500);
  t.equal((await res.json()).errorCode, 50001);
  t.equal((await tts({})).status, 200, 'the next request is served');
});

t.test('a synthesis without a sample of audio is 400 / 40001, not an empty WAV that is paid for', async (t) => {
  const before = await srv.balance(account.id);
  const res = await tts({ text: 'صمت تام في كل مكان هنا.' });
  t.equal(res.status, 400);
  t.equal((await res.json()).errorCode, 40001);
  const after = await srv.balance(account.id);
  t.equal(after.balance, before.balance, 'nothing charged');
});

t.test('a back end made for another contract version fails the boot, naming its plugin', async (t) => {
  const dataDir = tempDir(t);
  const app = await createSawt({
    runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: path.join(dataDir, 'models'), configDir: repoRoot },
    config: configWith({ contract: 99 }),
    logger: { info() {}, debug() {}, warn() {}, error() {}, child() { return this; } },
  }).then((a) => a, (e) => e);
  t.type(app, Error);
  t.match(app.message, /formant-voice/);
  t.match(app.message, /contract version 99/);
});

t.test('the chunk timeout counts the back end\'s time only: a consumer that holds a chunk past it gets the rest', async (t) => {
  // Three sentences: the first is one part, the other two one more (two chunks of one back-end stream).
  const stream = await srv.app.get(tokens.synthesizer).synthesize({
    modelId: 'formant-1', voiceId: 'formant-nour', accountId: account.id, text: [TEXT, TEXT, TEXT].join(' '), speed: 1, stability: 0.5, sampleRate: 24000,
  });
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    // Held for longer than the back end's 1.5 s chunk timeout, after the first chunk of the second part.
    if (chunks.length === 2) await new Promise((resolve) => setTimeout(resolve, 2500));
  }
  t.equal(chunks.length, 3, 'every sentence came');
  t.equal(chunks.at(-1).isLast, true, 'the last chunk says so');
});
