// @sawt/client against a real server: HTTP calls, typed errors, 429 retries, the
// WebSocket session, preview → clone → delete, denoise; and its types against the
// server's OpenAPI document.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import {
  SawtClient, AuthenticationError, ValidationError, InsufficientBalanceError, NotFoundError, RateLimitError, ConnectionError, pcmToWav,
} from '@sawt/client';
import { renderApiTypes, generatedPath } from '../../packages/client/scripts/generate-api-types.mjs';
import { LONG_TEXT, SENTENCE, parseWav, pcmStats, startServer } from '../helpers/server.js';
import { wsConfig } from '../helpers/ws.js';
import { referenceWav } from '../clone/helpers.js';

const noisyFile = '/work/shared/testdata/noise/noisy_speech_en_snr0.wav';

const srv = await startServer(t, { config: wsConfig() });
const { key, account, headers } = await srv.client();
const sawt = new SawtClient({ baseUrl: srv.base, apiKey: key.key, WebSocket });

const concat = (chunks) => Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.length)));

t.test('the generated types are those of the served OpenAPI document', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  t.equal(readFileSync(generatedPath, 'utf8'), renderApiTypes(doc), 'packages/client/src/generated/api-types.ts is up to date (npm run generate -w @sawt/client)');
});

t.test('models and voices', async (t) => {
  t.equal(sawt.baseUrl, `${srv.base}/api/v1`, 'a base URL without a path gets /api/v1');
  const models = await sawt.models();
  t.ok(models.some((m) => m.model_id === 'sawt-mini'), 'sawt-mini listed');
  const voices = await sawt.voices();
  const omar = voices.find((v) => v.voice_id === 'fusha-omar');
  t.ok(omar, 'fusha-omar listed');
  t.ok(omar.dialect.includes('fusha'));
});

t.test('textToSpeech resolves to a WAV file and charges the wallet', async (t) => {
  const before = await srv.balance(account.id);
  const wav = await sawt.textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5 });
  t.ok(wav instanceof Uint8Array);
  const w = parseWav(Buffer.from(wav));
  t.equal(w.riff, 'RIFF');
  t.same(w.fmt, { format: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16 });
  const s = pcmStats(w.data);
  t.ok(s.seconds > 1, `${s.seconds.toFixed(2)} s of audio`);
  t.ok(s.rms > 300, `audible (rms ${s.rms.toFixed(0)})`);
  t.ok((await srv.balance(account.id)).balance < before.balance, 'wallet charged');
});

t.test('streamTextToSpeech yields PCM chunks in whole samples, the same audio as the WAV', async (t) => {
  const stream = sawt.streamTextToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: LONG_TEXT, stability: 0.5 });
  t.equal(stream.sampleRate, 24000);
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  t.ok(chunks.length > 1, `${chunks.length} chunks`);
  t.ok(chunks.every((c) => c.length % 2 === 0), 'every chunk holds whole samples');
  const pcm = concat(chunks);
  const wav = parseWav(Buffer.from(await sawt.textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: LONG_TEXT, stability: 0.5 })));
  // Synthesis length varies from run to run (up to 0.4 % for this text: see the WebSocket test below); a lost chunk would be ~2 %.
  t.ok(Math.abs(pcm.length - wav.data.length) < wav.data.length * 0.01, `${pcm.length} bytes streamed, ${wav.data.length} in the WAV`);
  t.ok(pcmStats(pcm).rms > 300, 'audible');
  t.equal(Buffer.from(pcmToWav(chunks)).subarray(44).length, pcm.length, 'pcmToWav keeps every sample');
});

t.test('breaking out of a stream cancels the request', async (t) => {
  let n = 0;
  for await (const c of sawt.streamTextToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: LONG_TEXT.repeat(3), stability: 0.5 })) {
    t.ok(c.length > 0);
    if (++n === 1) break;
  }
  t.equal(n, 1);
});

t.test('errors are typed and carry errorCode, status and the server message', async (t) => {
  const bad = new SawtClient({ baseUrl: srv.api, apiKey: 'sk_wrong' });
  const auth = await bad.models().catch((e) => e);
  t.ok(auth instanceof AuthenticationError, auth.name);
  t.match(auth, { errorCode: 40101, status: 401 });
  t.ok(auth.message.length > 5, auth.message);
  t.ok(auth.requestId, 'request id kept');

  const short = await sawt.textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: 'قصير', stability: 0.5 }).catch((e) => e);
  t.ok(short instanceof ValidationError);
  t.match(short, { errorCode: 40001, status: 400, message: /3 words/ });

  const model = await (async () => { for await (const _ of sawt.streamTextToSpeech('no-such-model', { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5 })); })().catch((e) => e);
  t.ok(model instanceof NotFoundError, 'a stream throws its error at the first iteration');
  t.match(model, { errorCode: 40401, status: 404, message: /no-such-model/ });

  const poor = await srv.client({ balance: '0.000001', plan: 'enterprise' });
  const broke = await new SawtClient({ baseUrl: srv.api, apiKey: poor.key.key }).textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5 }).catch((e) => e);
  t.ok(broke instanceof InsufficientBalanceError);
  t.match(broke, { errorCode: 40201, status: 402 });

  const down = await new SawtClient({ baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: 'x' }).models().catch((e) => e);
  t.ok(down instanceof ConnectionError, 'no server: ConnectionError');
  t.equal(down.errorCode, 0);
});

t.test('429 is retried after Retry-After only when asked', async (t) => {
  const cfg = wsConfig();
  cfg.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 1000, max: 2 };
  const limited = await startServer(t, { config: cfg });
  const { key } = await limited.client();
  const plain = new SawtClient({ baseUrl: limited.base, apiKey: key.key });
  await plain.models();
  await plain.models();
  const e = await plain.models().catch((err) => err);
  t.ok(e instanceof RateLimitError);
  t.match(e, { errorCode: 42902, status: 429 });
  t.ok(e.retryAfterSeconds >= 1, `Retry-After ${e.retryAfterSeconds} s`);

  const patient = new SawtClient({ baseUrl: limited.base, apiKey: key.key, retry: { maxRetries: 3 } });
  const models = await patient.models();
  t.ok(models.length > 0, 'answered after waiting');
  const impatient = await patient.models({ retry: { maxRetries: 3, maxDelayMs: 10 } }).then(() => null, (err) => err);
  t.ok(impatient === null || impatient instanceof RateLimitError, 'a Retry-After above maxDelayMs ends the retries with the error');
});

t.test('WebSocket: text from a generator, audio with alignment until isFinal', async (t) => {
  const session = await sawt.connect({ voice_id: 'fusha-omar', output_format: 'pcm_16000' });
  const words = LONG_TEXT.split(' ');
  const sending = (async () => {
    for (let i = 0; i < words.length; i += 4) await session.send(words.slice(i, i + 4).join(' ') + ' ');
    await session.flush();
  })();
  const events = [];
  for await (const e of session.untilFinal()) events.push(e);
  await sending;
  t.ok(events.length > 1, `${events.length} audio messages`);
  t.ok(events.every((e) => e.sampleRate === 16000), 'output_format honoured');
  t.ok(events.at(-1).isFinal, 'ends with isFinal');
  const chars = events.flatMap((e) => e.alignment?.chars ?? []).join('');
  t.ok(chars.includes('السلام'), 'alignment carries the words');
  const pcm = concat(events.map((e) => e.pcm));
  t.ok(pcm.length / 2 / 16000 > 3, `${(pcm.length / 32000).toFixed(1)} s of audio`);
  t.ok(pcmStats(pcm).rms > 300);
  await session.close();
});

t.test('WebSocket: events, clear, and a paused reader still gets every sample', async (t) => {
  const session = await sawt.connect({ voice_id: 'fusha-omar', highWaterBytes: 1 });
  let audio = 0;
  let finals = 0;
  const done = new Promise((resolve) => session.on('final', () => { finals++; resolve(); }));
  session.on('audio', (e) => (audio += e.pcm.length));
  session.on('alignment', (a) => t.ok(a.chars.length > 0));
  await session.send(SENTENCE, { flush: true });
  await done;
  t.ok(audio > 24000, 'audio events');
  t.equal(finals, 1);
  session.clear();
  await session.close();

  // Iterated late with a 1-byte high-water mark: the socket is paused, then resumed as the queue drains.
  const slow = await sawt.connect({ voice_id: 'fusha-omar', highWaterBytes: 1 });
  await slow.send(LONG_TEXT, { flush: true });
  await new Promise((r) => setTimeout(r, 1500));
  let bytes = 0;
  for await (const e of slow.untilFinal()) bytes += e.pcm.length;
  const ref = parseWav(Buffer.from(await sawt.textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: LONG_TEXT, stability: 0.5 })));
  // espeak-ng ends each voiced stretch at a pitch-cycle boundary and keeps its pitch flutter
  // between calls, so the same text comes out a little longer or shorter each time: 921.5 to
  // 925.4 kB over six WAVs of this text; one WebSocket audio message is about 1 % of it.
  t.ok(Math.abs(bytes - ref.data.length) < ref.data.length * 0.01, `every chunk arrived (${bytes} bytes; WAV of the same text ${ref.data.length})`);
  await slow.close();
});

t.test('WebSocket: a bad key rejects connect with AuthenticationError', async (t) => {
  const e = await new SawtClient({ baseUrl: srv.api, apiKey: 'sk_wrong', WebSocket }).connect({ voice_id: 'fusha-omar' }).catch((err) => err);
  t.ok(e instanceof AuthenticationError, e.name);
  t.equal(e.errorCode, 40101);
  t.equal(e.status, 401);
});

t.test('preview → clone → speak → delete', async (t) => {
  const reference = await referenceWav(srv, headers);
  const chunks = [];
  for await (const c of sawt.previewVoice({ file: reference, text: SENTENCE, similarity: 0.8, model_id: 'sawt-mini' })) chunks.push(c);
  const preview = concat(chunks);
  t.ok(pcmStats(preview).rms > 300, 'preview audible');
  const voice = await sawt.cloneVoice({ voice_file: preview, reference_audio_file: reference, text: SENTENCE, stability: 0.5, name: 'Client voice', model: 'sawt-mini', dialects: 'egyptian' });
  t.ok(voice.voice_id, `cloned ${voice.voice_id}`);
  t.equal(voice.name, 'Client voice');
  t.ok((await sawt.voices()).some((v) => v.voice_id === voice.voice_id), 'listed');
  const wav = parseWav(Buffer.from(await sawt.textToSpeech('sawt-mini', { voice_id: voice.voice_id, text: SENTENCE, stability: 0.5 })));
  t.ok(pcmStats(wav.data).rms > 300, 'speaks with the clone');

  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  if (doc.paths['/voices/{voice_id}']?.delete) {
    await sawt.deleteVoice(voice.voice_id);
    t.notOk((await sawt.voices()).some((v) => v.voice_id === voice.voice_id), 'deleted');
    const again = await sawt.deleteVoice(voice.voice_id).catch((e) => e);
    t.ok(again instanceof NotFoundError, 'deleting twice: NotFoundError');
  } else {
    const e = await sawt.deleteVoice(voice.voice_id).catch((err) => err);
    t.ok(e instanceof NotFoundError, 'this server has no DELETE /voices/{voice_id} yet: NotFoundError 40401');
  }
});

t.test('denoise returns a WAV of the same length', async (t) => {
  const noisy = readFileSync(noisyFile);
  const out = parseWav(Buffer.from(await sawt.denoise(new Blob([noisy]), { fileName: path.basename(noisyFile) })));
  const inp = parseWav(noisy);
  t.equal(out.riff, 'RIFF');
  const secondsIn = inp.data.length / 2 / inp.fmt.sampleRate;
  const secondsOut = out.data.length / 2 / out.fmt.sampleRate / out.fmt.channels;
  t.ok(Math.abs(secondsIn - secondsOut) < 0.1, `${secondsIn.toFixed(2)} s in, ${secondsOut.toFixed(2)} s out`);
});
