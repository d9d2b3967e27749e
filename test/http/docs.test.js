// The machine-readable interface: OpenAPI with /healthz and an absolute server URL,
// the AsyncAPI 3 description of the WebSocket (from the rules that validate it), and
// the /docs page rendering both with no network access.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Parser } from '@asyncapi/parser';
import { fieldsToJsonSchema, OUTPUT_FORMAT_NAMES } from '@sawt/core';
import { initFields } from '@sawt/plugin-transport-ws';
import { startServer, defaultConfigPath } from '../helpers/server.js';
import { ready } from '../helpers/ws.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

function withPublicUrl(url) {
  const c = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.publicUrl = url;
  return c;
}

const srv = await startServer(t);

t.test('OpenAPI: absolute server URL as the client reached it, and /healthz at the root', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  t.same(doc.servers, [{ url: `${srv.base}/api/v1` }]);
  t.same(doc.paths['/healthz'].servers, [{ url: srv.base, description: 'The server root (outside /api/v1)' }]);
  t.same(doc.paths['/healthz'].get.security, [], 'no key needed');
  t.ok(doc.paths['/healthz'].get.responses['200']);
});

t.test('a configured public URL is the server of both documents', async (t) => {
  const other = await startServer(t, { config: withPublicUrl('https://api.example.com/sawt/') });
  const openapi = await (await fetch(`${other.api}/openapi.json`)).json();
  t.same(openapi.servers, [{ url: 'https://api.example.com/sawt/api/v1' }]);
  t.equal(openapi.paths['/healthz'].servers[0].url, 'https://api.example.com/sawt');
  const asyncapi = await (await fetch(`${other.api}/asyncapi.json`)).json();
  t.match(asyncapi.servers.sawt, { host: 'api.example.com', protocol: 'wss', pathname: '/sawt/api/v1' });
});

t.test('asyncapi.json is a valid AsyncAPI 3 document of the protocol the server speaks', async (t) => {
  const r = await fetch(`${srv.api}/asyncapi.json`);
  t.equal(r.status, 200);
  t.match(r.headers.get('content-type'), /^application\/json/);
  const doc = await r.json();
  const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
  t.same(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`), [], 'no errors');
  t.ok(document, 'parsed');
  t.equal(doc.asyncapi, '3.0.0');
  t.equal(doc.info.version, '1.0.0');
  t.match(doc.servers.sawt, { host: new URL(srv.base).host, protocol: 'ws', pathname: '/api/v1' });
  t.equal(doc.channels.textToSpeech.address, '/websocket/text-to-speech');
  t.same(Object.keys(doc.components.messages).sort(), ['audio', 'clear', 'closeConnection', 'connectionInitialized', 'error', 'initConnection', 'text']);

  // The init payload is generated from the rules the session validates with.
  const init = doc.components.messages.initConnection.payload;
  const rules = fieldsToJsonSchema(initFields);
  for (const [k, v] of Object.entries(rules.properties)) t.same(init.properties[k], v, `initConnection.${k} as validated`);
  t.same(init.required, ['type', 'voice_id']);
  t.same(init.properties.output_format.enum, OUTPUT_FORMAT_NAMES, 'every output format of the table');
  t.same(init.properties.voice_settings.properties.speed, { description: 'Below 1.0 slows speech, above 1.0 speeds it.', type: 'number', minimum: 0.7, maximum: 1.2, default: 1 });
  t.ok(init.properties.x_api_key, 'x_api_key in the init message');
  const text = doc.components.messages.text.payload;
  t.same(Object.keys(text.properties).sort(), ['flush', 'text', 'try_trigger_generation', 'type']);

  // What the server sends matches what the document says it sends.
  const { key } = await srv.client();
  const ws = await ready(srv, key.key, { output_format: 'pcm_16000' });
  ws.send({ type: 'text', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', flush: true });
  await ws.until(() => ws.audio().find((m) => m.isFinal));
  ws.send({ type: 'nonsense' });
  await ws.until(() => ws.errors().length);
  const audio = doc.components.messages.audio.payload;
  for (const m of ws.audio()) {
    t.ok(audio.required.every((k) => k in m), 'audio message has the required fields');
    t.ok(Object.keys(m).every((k) => k in audio.properties), `audio message fields are documented (${Object.keys(m)})`);
    t.ok(audio.properties.sampleRate.enum.includes(m.sampleRate));
  }
  const err = ws.errors()[0];
  t.same(Object.keys(err).sort(), [...doc.components.messages.error.payload.required].sort());
  t.ok(doc.components.messages.error.payload.properties.errorCode.enum.includes(err.errorCode));
  ws.ws.close();
});

t.test('/docs serves the page and the renderers from this server only', async (t) => {
  const page = await fetch(`${srv.base}/docs`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const csp = page.headers.get('content-security-policy');
  t.match(csp, /default-src 'self'/);
  t.match(csp, /connect-src 'self'/);
  const html = await page.text();
  t.notMatch(html, /https?:\/\//, 'no absolute links to elsewhere');
  for (const src of html.match(/(?:src|href)="\.\/docs\/[^"]+"/g)) {
    const url = `${srv.base}/${src.split('"')[1].slice(2)}`;
    const r = await fetch(url);
    t.equal(r.status, 200, `${url} is served`);
    t.ok((await r.arrayBuffer()).byteLength > 100);
  }
  const slash = await fetch(`${srv.base}/docs/`, { redirect: 'manual' });
  t.equal(slash.status, 301);
  t.equal(slash.headers.get('location'), '../docs');
});

t.test('/docs renders both documents in headless Chromium', { skip: !CHROMIUM && 'no Chromium' }, async (t) => {
  const dump = async (hash) => {
    const { stdout, stderr } = await promisify(execFile)(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--enable-logging=stderr', '--v=0', '--virtual-time-budget=20000', '--dump-dom', `${srv.base}/docs${hash}`,
    ], { maxBuffer: 64 << 20, timeout: 120_000 });
    t.notMatch(stderr, /Content Security Policy|Uncaught/, `no refused load or script error (${hash || 'http'})`);
    return stdout;
  };
  const http = await dump('');
  for (const p of ['/text-to-speech/{model_id}', '/voices/clone', '/denoise', '/healthz']) t.match(http, `data-path="${p}"`, `OpenAPI operation ${p} rendered`);
  const ws = await dump('#websocket');
  for (const m of ['initConnection', 'connectionInitialized', 'closeConnection']) t.match(ws, m, `AsyncAPI message ${m} rendered`);
});
