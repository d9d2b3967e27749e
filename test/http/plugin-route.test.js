// The route contract for plugins: a plugin outside the source tree, named in a config
// file by path, adds a route with its own scope through tokens.httpServer's route() and
// gets key authentication, the scope check, the rate limit, the request id, the error
// shape and its OpenAPI entry from the server; its audio comes from the engine.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tokens } from '@sawt/core';
import { defaultConfigPath, parseWav, pcmStats, repoRoot, startServer, tempDir } from '../helpers/server.js';
import { checkedInjectFetch } from '../helpers/inject.js';

const RATE_MAX = 6;
const dir = tempDir(t);
const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
config.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60_000, max: RATE_MAX };
config.plugins.find((p) => p.resolve === '@sawt/plugin-denoise').options.backend = 'rnnoise';
config.plugins.push({ resolve: path.relative(dir, path.join(repoRoot, 'test/fixtures/plugins/greeting-voice/index.js')), options: { greeting: 'أهلا يا' } });
const configPath = path.join(dir, 'sawt.json');
writeFileSync(configPath, JSON.stringify(config));
const srv = await startServer(t, { runtime: { configPath, configDir: dir } });
// No socket: requests through fastify's inject(), every answer checked against the OpenAPI document, the plugin's route included.
const fetch = checkedInjectFetch(t, srv);

const greet = (headers, body = { name: 'سلمى', voice_id: 'fusha-omar' }) =>
  fetch(`${srv.api}/greeting`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function expectError(t, res, status, errorCode) {
  t.equal(res.status, status, `status ${status}`);
  t.ok(res.headers.get('x-request-id'), 'x-request-id');
  const body = await res.json();
  t.same(Object.keys(body).sort(), ['errorCode', 'errorMessage']);
  t.equal(body.errorCode, errorCode);
  return body;
}

t.test('the plugin\'s scope is one keys may name, beside the built-in ones', async (t) => {
  t.same(srv.app.get(tokens.scopes).names, ['models', 'voices', 'tts', 'tts-ws', 'preview', 'openai', 'clone', 'dictionaries', 'denoise', 'greeting']);
  const account = await srv.createAccount();
  const k = await srv.createKey(account.id, { endpoints: ['greeting', 'models'] });
  t.same(k.endpoints, ['models', 'greeting']);
  await t.rejects(srv.createKey(account.id, { endpoints: ['greetings'] }), { code: 40001, message: /allowed: models, voices, tts, tts-ws, preview, openai, clone, dictionaries, denoise, greeting/ });
});

t.test('without a key: 401 40101', async (t) => {
  await expectError(t, await greet({}), 401, 40101);
  await expectError(t, await greet({ 'x-api-key': 'sawt_' + 'A'.repeat(40) }), 401, 40101);
});

t.test('a key restricted to other scopes: 403 40302', async (t) => {
  const account = await srv.createAccount();
  const k = await srv.createKey(account.id, { endpoints: ['tts'] });
  const body = await expectError(t, await greet({ 'x-api-key': k.key }), 403, 40302);
  t.match(body.errorMessage, /greeting/);
});

t.test('with the scope: 200 and a WAV of speech from the engine', async (t) => {
  const account = await srv.createAccount();
  const k = await srv.createKey(account.id, { endpoints: ['greeting'] });
  const res = await greet({ 'x-api-key': k.key });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'audio/wav');
  t.ok(res.headers.get('x-request-id'));
  const buf = Buffer.from(await res.arrayBuffer());
  t.equal(Number(res.headers.get('content-length')), buf.length);
  const wav = parseWav(buf);
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16 });
  const s = pcmStats(wav.data);
  t.ok(s.seconds > 1, `speech lasts more than a second (${s.seconds.toFixed(2)} s)`);
  t.ok(s.rms > 500, `not silent (rms ${s.rms.toFixed(0)})`);
});

t.test('the body rules: 400 40001 with the rule\'s message; an unknown voice: 404 40401 from the engine', async (t) => {
  const { headers } = await srv.client();
  const body = await expectError(t, await greet(headers, { voice_id: 'fusha-omar' }), 400, 40001);
  t.equal(body.errorMessage, 'name is required');
  await expectError(t, await greet(headers, { name: 'x'.repeat(101), voice_id: 'fusha-omar' }), 400, 40001);
  await expectError(t, await greet(headers, { name: 'سلمى', voice_id: 'no-such-voice' }), 404, 40401);
});

t.test('the key\'s rate limit applies: 429 42902 with Retry-After past the window budget', async (t) => {
  const { headers } = await srv.client();
  const statuses = [];
  // A body that fails its rules still counts: the limit is checked before the handler runs.
  for (let i = 0; i < RATE_MAX; i++) statuses.push((await greet(headers, {})).status);
  t.same(statuses, Array(RATE_MAX).fill(400));
  const res = await greet(headers);
  await expectError(t, res, 429, 42902);
  t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After');
});

t.test('the OpenAPI document lists the route with its scope, body and errors', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  const op = doc.paths['/greeting']?.post;
  t.ok(op, 'POST /greeting is documented');
  t.equal(op['x-sawt-scope'], 'greeting');
  t.same(op.security, [{ ApiKeyAuth: [] }]);
  t.same(op.requestBody.content['application/json'].schema.required, ['name', 'voice_id']);
  t.ok(op.responses['200'].content['audio/wav']);
  for (const status of ['400', '401', '403', '404', '429']) t.ok(op.responses[status], `${status} documented`);
  t.match(op.responses['403'].description, /40302/);
  t.match(op.responses['429'].description, /42902/);
});
