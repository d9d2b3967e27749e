// CORS (transport-http's cors option): off by default; for the listed origins the
// allow headers on every answer, errors included, and preflights answered 204 (other origins'
// preflights too, without allow headers). Requests through fastify's inject(): no socket needed.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createSawt } from '@sawt/core';
import { defaultConfigPath, silentLogger, startServer, tempDir } from '../helpers/server.js';
import { checkedInjectFetch } from '../helpers/inject.js';

function withCors(cors) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const http = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http');
  http.options = { ...http.options, cors };
  return config;
}
const preflight = (fetch, url, origin) => fetch(url, {
  method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
});

t.test('off by default: no CORS headers, preflight not allowed', async (t) => {
  const srv = await startServer(t);
  const fetch = checkedInjectFetch(t, srv);
  const { headers } = await srv.client();
  const pre = await preflight(fetch, `${srv.api}/text-to-speech/sawt-mini`, 'http://app.example');
  t.equal(pre.headers.get('access-control-allow-origin'), null);
  const res = await fetch(`${srv.api}/models`, { headers: { ...headers, origin: 'http://app.example' } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('access-control-allow-origin'), null);
});

t.test('listed origins: preflight, answers and errors carry the allow headers; others get none', async (t) => {
  const srv = await startServer(t, { config: withCors({ origins: ['http://app.example', 'https://studio.example:8443'], maxAgeSeconds: 120 }) });
  const fetch = checkedInjectFetch(t, srv);
  const { headers } = await srv.client();
  const pre = await preflight(fetch, `${srv.api}/text-to-speech/sawt-mini`, 'http://app.example');
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), 'http://app.example');
  t.match(pre.headers.get('access-control-allow-methods'), /POST/);
  t.match(pre.headers.get('access-control-allow-headers'), /x-api-key/);
  t.match(pre.headers.get('access-control-allow-headers'), /content-type/);
  t.equal(pre.headers.get('access-control-max-age'), '120');
  t.match(pre.headers.get('vary'), /Origin/);

  const ok = await fetch(`${srv.api}/models`, { headers: { ...headers, origin: 'https://studio.example:8443' } });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('access-control-allow-origin'), 'https://studio.example:8443');
  t.match(ok.headers.get('access-control-expose-headers'), /x-request-id/);
  t.match(ok.headers.get('access-control-expose-headers'), /retry-after/);

  const wav = await fetch(`${srv.api}/text-to-speech/sawt-mini`, {
    method: 'POST', headers: { ...headers, origin: 'http://app.example' },
    body: JSON.stringify({ voice_id: 'fusha-omar', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, streaming: false }),
  });
  t.equal(wav.status, 200);
  t.equal(wav.headers.get('access-control-allow-origin'), 'http://app.example', 'audio answers (written past fastify) carry it too');
  await wav.arrayBuffer();

  const denied = await fetch(`${srv.api}/models`, { headers: { 'x-api-key': 'sawt_wrong', origin: 'http://app.example' } });
  t.equal(denied.status, 401);
  t.equal(denied.headers.get('access-control-allow-origin'), 'http://app.example', 'a refusal is readable by the page');
  t.equal((await denied.json()).errorCode, 40101);

  const other = await preflight(fetch, `${srv.api}/models`, 'http://evil.example');
  t.equal(other.status, 204, 'an unlisted origin\'s preflight is answered, as a listed one\'s, before routing');
  t.equal(other.headers.get('access-control-allow-origin'), null, 'an unlisted origin is not allowed');
  t.equal(other.headers.get('access-control-allow-methods'), null);
  t.equal(other.headers.get('access-control-allow-headers'), null);
  t.match(other.headers.get('vary'), /Origin/);
  const otherTts = await preflight(fetch, `${srv.api}/text-to-speech/sawt-mini`, 'http://evil.example');
  t.equal(otherTts.status, 204);
  t.equal(otherTts.headers.get('access-control-allow-origin'), null);
  const otherGet = await fetch(`${srv.api}/models`, { headers: { ...headers, origin: 'http://evil.example' } });
  t.equal(otherGet.headers.get('access-control-allow-origin'), null);
});

t.test('the OpenAI-compatible route answers CORS as the others and exposes the speed it applied', async (t) => {
  const srv = await startServer(t, { config: withCors({ origins: ['http://app.example'] }) });
  const fetch = checkedInjectFetch(t, srv);
  const { headers } = await srv.client();
  const pre = await preflight(fetch, `${srv.base}/v1/audio/speech`, 'http://app.example');
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), 'http://app.example');
  t.match(pre.headers.get('access-control-allow-headers'), /authorization/);
  const res = await fetch(`${srv.base}/v1/audio/speech`, {
    method: 'POST', headers: { authorization: `Bearer ${headers['x-api-key']}`, 'content-type': 'application/json', origin: 'http://app.example' },
    body: JSON.stringify({ model: 'sawt-mini', voice: 'fusha-omar', input: 'مرحبا بكم في خدمة صوت.', response_format: 'wav', speed: 2 }),
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('access-control-allow-origin'), 'http://app.example');
  t.match(res.headers.get('access-control-expose-headers'), /x-sawt-speed-applied/);
  t.equal(res.headers.get('x-sawt-speed-applied'), '1.2');
  await res.arrayBuffer();
});

t.test('"*" allows any origin', async (t) => {
  const srv = await startServer(t, { config: withCors({ origins: ['*'] }) });
  const fetch = checkedInjectFetch(t, srv);
  const pre = await preflight(fetch, `${srv.api}/voices/clone`, 'http://anything.example');
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), '*');
});

t.test('an origin that is not scheme://host[:port] is refused at boot', async (t) => {
  const dataDir = tempDir(t);
  const err = await createSawt({
    runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: dataDir, configPath: defaultConfigPath },
    config: withCors({ origins: ['app.example'] }),
    logger: silentLogger,
  }).then((app) => app, (e) => e);
  t.ok(err instanceof Error, 'boot refused');
  t.match(String(err.message), /cors/);
});
