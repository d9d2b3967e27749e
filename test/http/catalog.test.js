import t from 'tap';
import { startServer, parseWav, pcmStats } from '../helpers/server.js';
import { injectFetch } from './inject.js';
import { ready } from '../helpers/ws.js';

const srv = await startServer(t);
const fetch = injectFetch(srv);
const { headers } = await srv.client();

t.test('GET /healthz needs no key', async (t) => {
  const res = await fetch(`${srv.base}/healthz`);
  t.equal(res.status, 200);
  t.ok(res.headers.get('x-request-id'));
});

t.test('GET /models lists sawt-mini with the Model fields', async (t) => {
  const res = await fetch(`${srv.api}/models`, { headers });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  const models = await res.json();
  t.ok(Array.isArray(models));
  const mini = models.find((m) => m.model_id === 'sawt-mini');
  t.ok(mini, 'sawt-mini listed');
  t.match(mini.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'id is a UUID');
  t.type(mini.model_name, 'string');
  t.ok(mini.description === null || typeof mini.description === 'string');
});

t.test('GET /voices covers six dialects and both genders with every Voice field', async (t) => {
  const res = await fetch(`${srv.api}/voices`, { headers });
  t.equal(res.status, 200);
  const voices = await res.json();
  const dialects = new Set(voices.flatMap((v) => v.dialect));
  for (const d of ['fusha', 'egyptian', 'emirati', 'najdi', 'hijazi', 'kuwaiti']) t.ok(dialects.has(d), `dialect ${d}`);
  const genders = new Set(voices.map((v) => v.gender));
  t.ok(genders.has('male') && genders.has('female'), 'both genders');
  for (const v of voices) {
    for (const f of ['voice_id', 'name', 'description', 'gender', 'age', 'languages', 'dialect', 'type', 'sample_url']) t.ok(f in v, `${v.voice_id} has ${f}`);
    t.ok(Array.isArray(v.languages) && Array.isArray(v.dialect));
    t.match(v.sample_url, new RegExp(`^${srv.base}/`), 'absolute sample URL on this server');
  }
  t.equal(new Set(voices.map((v) => v.voice_id)).size, voices.length, 'unique voice ids');
});

t.test('every sample_url serves real audio without a key', async (t) => {
  const voices = await (await fetch(`${srv.api}/voices`, { headers })).json();
  const res = await fetch(voices[0].sample_url);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'audio/wav');
  const wav = parseWav(Buffer.from(await res.arrayBuffer()));
  t.equal(wav.fmt.sampleRate, 24000);
  t.ok(pcmStats(wav.data).rms > 500, 'non-silent sample');
  const missing = await fetch(`${srv.api}/voices/nobody/sample`);
  t.equal(missing.status, 404);
  t.equal((await missing.json()).errorCode, 40401);
});

t.test('a voice of some models only is sampled with one of its models (HTS voice fusha-ziad)', async (t) => {
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  t.ok(models.some((m) => m.model_id === 'sawt-hts'), 'sawt-hts is listed (bundled voice)');
  const res = await fetch(`${srv.api}/voices/fusha-ziad/sample`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'audio/wav');
  t.ok(pcmStats(parseWav(Buffer.from(await res.arrayBuffer())).data).rms > 200, 'non-silent sample');
});

t.test('openapi.json is OpenAPI 3, version 1.0.0, and documents the routes and their rules', async (t) => {
  const res = await fetch(`${srv.api}/openapi.json`);
  t.equal(res.status, 200);
  const doc = await res.json();
  t.match(doc.openapi, /^3\./);
  t.equal(doc.info.version, '1.0.0');
  for (const p of ['/models', '/voices', '/text-to-speech/{model_id}']) t.ok(doc.paths[p], `documents ${p}`);
  const body = doc.paths['/text-to-speech/{model_id}'].post.requestBody.content['application/json'].schema;
  t.same(body.required.sort(), ['stability', 'streaming', 'text', 'voice_id']);
  t.equal(body.properties.speed.minimum, 0.7);
  t.equal(body.properties.speed.maximum, 1.2);
  t.equal(body.properties.stability.maximum, 1);
  const responses = doc.paths['/text-to-speech/{model_id}'].post.responses;
  for (const s of ['200', '400', '401', '402', '403', '404', '429']) t.ok(responses[s], `documents status ${s}`);
});

t.test('each voice lists the models it speaks on; ?model_id= filters; each model names its default voice', async (t) => {
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  const ids = models.map((m) => m.model_id);
  const voices = await (await fetch(`${srv.api}/voices`, { headers })).json();
  for (const v of voices) {
    t.ok(Array.isArray(v.models) && v.models.length > 0, `${v.voice_id} speaks on ${v.models}`);
    t.ok(v.models.every((id) => ids.includes(id)), `${v.voice_id}: only listed models`);
    t.ok(v.models.includes('sawt-mini') && v.models.includes('sawt-hts'), `${v.voice_id}: both built-in models`);
  }
  t.equal(voices.length, 19, 'every built-in persona (sawt-neural is not installed here)');
  for (const m of models) {
    const res = await fetch(`${srv.api}/voices?model_id=${m.model_id}`, { headers });
    t.equal(res.status, 200);
    const own = await res.json();
    t.same(own.map((v) => v.voice_id), voices.filter((v) => v.models.includes(m.model_id)).map((v) => v.voice_id), `?model_id=${m.model_id}: the voices that list it`);
    t.ok(own.some((v) => v.voice_id === m.default_voice_id), `${m.model_id}: default_voice_id ${m.default_voice_id} is one of its voices`);
  }
  t.equal(models.find((m) => m.model_id === 'sawt-mini').default_voice_id, 'fusha-omar');
  t.equal(models.find((m) => m.model_id === 'sawt-hts').default_voice_id, 'fusha-ziad', 'the HTS voice as recorded');
});

t.test('?model_id= of an unknown model is 404 / 40401', async (t) => {
  for (const id of ['sawt-nothing', 'sawt-neural']) {
    const res = await fetch(`${srv.api}/voices?model_id=${id}`, { headers });
    t.equal(res.status, 404, `${id} (not offered here)`);
    const body = await res.json();
    t.equal(body.errorCode, 40401);
    t.match(body.errorMessage, `Model '${id}' not found`);
  }
});

t.test('the Omar of the issue: fusha-omar on sawt-hts is audio', async (t) => {
  const res = await fetch(`${srv.api}/text-to-speech/sawt-hts`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: 'مرحبا بكم في خدمة صوت.', stability: 0.5, streaming: false }) });
  t.equal(res.status, 200);
  t.ok(pcmStats(parseWav(Buffer.from(await res.arrayBuffer())).data).rms > 300);
});

t.test('a voice a model truly lacks: 404 / 40401 naming the model\'s voices (Piper voice on sawt-hts, built-in persona on sawt-neural)', async (t) => {
  const { standinModelsDir } = await import('../piper/models-dir.js');
  const neural = await startServer(t, { runtime: { modelsDir: standinModelsDir(t) } });
  const fetch = injectFetch(neural);
  const c = await neural.client();
  const voices = await (await fetch(`${neural.api}/voices`, { headers: c.headers })).json();
  t.same(voices.find((v) => v.voice_id === 'neural-kareem').models, ['sawt-neural'], 'the Piper voice speaks on its model only');
  t.same((await (await fetch(`${neural.api}/voices?model_id=sawt-neural`, { headers: c.headers })).json()).map((v) => v.voice_id), ['neural-kareem']);
  const models = await (await fetch(`${neural.api}/models`, { headers: c.headers })).json();
  t.equal(models.find((m) => m.model_id === 'sawt-neural').default_voice_id, 'neural-kareem');
  const say = (model, voice_id) => fetch(`${neural.api}/text-to-speech/${model}`, { method: 'POST', headers: c.headers, body: JSON.stringify({ voice_id, text: 'مرحبا بكم في خدمة صوت.', stability: 0.5, streaming: false }) });
  const before = await neural.balance(c.account.id);
  let res = await say('sawt-hts', 'neural-kareem');
  t.equal(res.status, 404);
  let body = await res.json();
  t.equal(body.errorCode, 40401);
  t.match(body.errorMessage, /Voice 'neural-kareem' does not speak on model 'sawt-hts'; its voices: fusha-omar, fusha-layla, .*fusha-ziad/);
  res = await say('sawt-neural', 'fusha-omar');
  t.equal(res.status, 404);
  body = await res.json();
  t.equal(body.errorCode, 40401);
  t.match(body.errorMessage, "Voice 'fusha-omar' does not speak on model 'sawt-neural'; its voices: neural-kareem");
  // The WebSocket says so at initConnection, before any text is sent.
  const ws = await ready(neural, c.key.key, { model_id: 'sawt-neural', voice_id: 'fusha-omar' });
  const [err] = ws.errors();
  t.ok(err, 'initConnection answered with an error');
  t.equal(err.errorCode, 40401);
  t.match(err.errorMessage, "Voice 'fusha-omar' does not speak on model 'sawt-neural'; its voices: neural-kareem");
  t.notOk(ws.messages.some((m) => m.type === 'connectionInitialized'), 'not initialized');
  ws.ws.close();
  const after = await neural.balance(c.account.id);
  t.equal(after.balance, before.balance, 'nothing charged');
});
