// The OpenAI-compatible API (/v1) through the official `openai` npm package against a real server:
// every response_format decoded by ffmpeg, streaming, SSE, the model list, OpenAI's error classes
// for Sawt's refusals, the speed clamp, and the money charged as on Sawt's own route.
import t from 'tap';
import OpenAI from 'openai';
import { billableChars, tokens } from '@sawt/core';
import { startServer, SENTENCE } from '../helpers/server.js';
import { checkedInjectFetch } from '../helpers/inject.js';
import { decode, FORMATS } from '../formats/decode.js';

// The openai package speaks to a real URL; a plain request of this file goes through inject().
const srv = await startServer(t);
const injected = checkedInjectFetch(t, srv);
const { account, key } = await srv.client({ plan: 'enterprise', balance: '100' });
const client = new OpenAI({ apiKey: key.key, baseURL: `${srv.base}/v1`, maxRetries: 0 });
const fmt = (name) => FORMATS.find((f) => f.name === name);
const bytes = async (res) => Buffer.from(await res.arrayBuffer());

const cases = [['mp3', 'mp3_44100_128', 'mp3'], ['wav', 'wav_24000', 'pcm_s16le'], ['pcm', 'pcm_24000', 'pcm_s16le'], ['opus', 'opus_48000_64', 'opus'], ['flac', 'flac_24000', 'flac']];
for (const [response_format, name, codec] of cases) {
  t.test(`audio.speech.create ${response_format}`, async (t) => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: SENTENCE, ...(response_format === 'mp3' ? {} : { response_format }) });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), fmt(name).contentType);
    t.equal(res.headers.get('x-sawt-model'), 'sawt-hts', 'tts-1 → sawt-hts');
    t.equal(res.headers.get('x-sawt-voice'), 'fusha-layla', 'alloy → fusha-layla');
    const audio = await decode(await bytes(res), fmt(name));
    t.equal(audio.codec, codec, `ffprobe: ${audio.codec}`);
    if (response_format === 'pcm') t.equal(audio.sampleRate, 24000, 'pcm is 24 kHz');
    t.ok(audio.seconds > 0.5 && audio.rms > 300, `audible, ${audio.seconds.toFixed(2)} s`);
  });
}

t.test('a short input (no 3-word minimum on /v1) and a Sawt model and voice id', async (t) => {
  const res = await client.audio.speech.create({ model: 'sawt-mini', voice: 'fusha-omar', input: 'نعم.', response_format: 'wav', instructions: 'speak cheerfully' });
  t.equal(res.status, 200);
  t.ok((await decode(await bytes(res), fmt('wav_24000'))).seconds > 0.1);
});

t.test('every voice and model name the openai package lists speaks (marin, cedar, the dated gpt-4o-mini-tts)', async (t) => {
  const voices = { alloy: 'female', ash: 'male', ballad: 'male', coral: 'female', echo: 'male', fable: 'male', onyx: 'male', nova: 'female', sage: 'female', shimmer: 'female', verse: 'male', marin: 'female', cedar: 'male' };
  const catalog = await (await injected(`${srv.api}/voices`, { headers: { 'x-api-key': key.key } })).json();
  const gender = Object.fromEntries((catalog.voices ?? catalog).map((v) => [v.voice_id, v.gender]));
  for (const [voice, want] of Object.entries(voices)) {
    const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts-2025-12-15', voice, input: 'نعم.', response_format: 'wav' }).asResponse();
    t.equal(res.status, 200, voice);
    t.equal(res.headers.get('x-sawt-model'), 'sawt-hts');
    t.equal(gender[res.headers.get('x-sawt-voice')], want, `${voice} → ${res.headers.get('x-sawt-voice')} (${want})`);
    await res.arrayBuffer();
  }
});

t.test('streaming: the body as generated (asResponse)', async (t) => {
  const res = await client.audio.speech.create({ model: 'sawt-mini', voice: 'onyx', input: SENTENCE.repeat(3) }).asResponse();
  t.equal(res.headers.get('transfer-encoding'), 'chunked');
  const parts = [];
  for await (const c of res.body) parts.push(Buffer.from(c));
  t.ok(parts.length >= 1);
  t.equal((await decode(parts[0], fmt('mp3_44100_128'))).codec, 'mp3', 'the first chunk alone is valid MP3');
  t.equal((await decode(Buffer.concat(parts), fmt('mp3_44100_128'))).codec, 'mp3');
});

t.test('stream_format sse: speech.audio.delta events then speech.audio.done with usage', async (t) => {
  const res = await client.audio.speech.create({ model: 'sawt-mini', voice: 'nova', input: SENTENCE, response_format: 'pcm', stream_format: 'sse' }).asResponse();
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')));
  const deltas = events.filter((e) => e.type === 'speech.audio.delta');
  t.ok(deltas.length >= 1, `${deltas.length} deltas`);
  const done = events.at(-1);
  t.equal(done.type, 'speech.audio.done');
  t.equal(done.usage.input_tokens, billableChars(SENTENCE));
  const pcm = Buffer.concat(deltas.map((d) => Buffer.from(d.audio, 'base64')));
  t.ok((await decode(pcm, fmt('pcm_24000'))).seconds > 0.5, 'the deltas concatenate to the audio');
});

t.test('models.list in OpenAI\'s shape', async (t) => {
  const ids = [];
  for await (const m of client.models.list()) {
    t.equal(m.object, 'model');
    t.equal(typeof m.created, 'number');
    t.equal(m.owned_by, 'sawt');
    ids.push(m.id);
  }
  for (const id of ['sawt-hts', 'tts-1', 'tts-1-hd', 'gpt-4o-mini-tts']) t.ok(ids.includes(id), `lists ${id}`);
});

t.test('speed 4.0 is clamped to 1.2, with a header saying so', async (t) => {
  const res = await client.audio.speech.create({ model: 'sawt-mini', voice: 'echo', input: SENTENCE, speed: 4, response_format: 'pcm' }).asResponse();
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-sawt-speed-applied'), '1.2');
  await res.arrayBuffer();
});

t.test('money: charged like the Sawt route (characters × cost per character)', async (t) => {
  const before = await srv.balance(account.id);
  const res = await client.audio.speech.create({ model: 'sawt-mini', voice: 'shimmer', input: SENTENCE, response_format: 'flac' });
  await res.arrayBuffer();
  const after = await srv.balance(account.id);
  t.equal(before.balance - after.balance, billableChars(SENTENCE) * 100);
  t.equal(after.reserved, 0);
});

/** The error the client throws for `params` (with `c`, another client). */
async function failure(params, c = client) {
  try {
    const res = await c.audio.speech.create({ model: 'sawt-mini', voice: 'alloy', input: SENTENCE, ...params });
    await res.arrayBuffer();
  } catch (e) {
    return e;
  }
  return null;
}

t.test('errors: OpenAI\'s classes and shape, code = Sawt\'s errorCode', async (t) => {
  const bad = await failure({}, new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${srv.base}/v1`, maxRetries: 0 }));
  t.ok(bad instanceof OpenAI.AuthenticationError, 'bad key: AuthenticationError');
  t.equal(bad.status, 401);
  t.equal(bad.code, 40101);
  t.equal(bad.type, 'authentication_error');

  const voice = await failure({ voice: 'nobody' });
  t.ok(voice instanceof OpenAI.NotFoundError, 'unknown voice: NotFoundError');
  t.equal(voice.code, 40401);
  t.equal(voice.param, 'voice');

  const aac = await failure({ response_format: 'aac' });
  t.ok(aac instanceof OpenAI.BadRequestError, 'aac: BadRequestError');
  t.equal(aac.code, 40001);
  t.equal(aac.param, 'response_format');
  t.match(aac.message, /aac is not supported/);

  const slow = await failure({ speed: 0.1 });
  t.ok(slow instanceof OpenAI.BadRequestError, 'speed under 0.25: BadRequestError');

  const other = await srv.client({ key: { endpoints: ['tts'] } });
  const scoped = await failure({}, new OpenAI({ apiKey: other.key.key, baseURL: `${srv.base}/v1`, maxRetries: 0 }));
  t.ok(scoped instanceof OpenAI.PermissionDeniedError, 'a key without the openai scope: PermissionDeniedError');
  t.equal(scoped.code, 40302);

  const poorAccount = await srv.app.get(tokens.accounts).create({ name: 'balance 0', plan: 'enterprise' });
  const poorKey = await srv.createKey(poorAccount.id);
  const broke = await failure({}, new OpenAI({ apiKey: poorKey.key, baseURL: `${srv.base}/v1`, maxRetries: 0 }));
  t.ok(broke instanceof OpenAI.APIError, 'balance 0: an APIError');
  t.equal(broke.status, 402);
  t.equal(broke.code, 40201);

  const raw = await injected(`${srv.base}/v1/audio/speech`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'nope', voice: 'alloy', input: 'نعم' }) });
  t.equal(raw.status, 404);
  const body = await raw.json();
  t.same(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type'], 'x-api-key works too; the body is {error: {message, type, code, param}}');
  t.equal(body.error.param, 'model');
  t.ok(raw.headers.get('x-request-id'));
});
