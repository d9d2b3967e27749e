// X-Forwarded-Proto/-Host shape the URLs the API returns (sample_url) only when the
// peer is trusted (transport-http's trustProxy), and even then only http/https and
// real host syntax get through.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { startServer, defaultConfigPath } from '../helpers/server.js';

function configWith(trustProxy) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const http = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http');
  http.options = { ...http.options, trustProxy };
  return config;
}

/** GET /voices over a raw request (any Host header), resolving the first voice's sample_url. */
function sampleUrl(srv, key, headers) {
  const { port } = new URL(srv.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/v1/voices', headers: { 'x-api-key': key, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)[0].sample_url) : reject(new Error(`${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

const evil = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };

t.test('by default forwarded headers are ignored, and a bad Host header cannot shape the URL', async (t) => {
  const srv = await startServer(t);
  const { key } = await srv.client();
  const own = `http://127.0.0.1:${new URL(srv.base).port}/api/v1/voices/`;
  t.ok((await sampleUrl(srv, key.key, evil)).startsWith(own), 'X-Forwarded-* ignored');
  t.ok((await sampleUrl(srv, key.key, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).startsWith(own), 'even plausible ones');
  t.ok((await sampleUrl(srv, key.key, { host: 'javascript:alert(1)' })).startsWith(own), 'a Host without host syntax falls back to the local address');
  t.ok((await sampleUrl(srv, key.key, { host: 'evil.example/x?' })).startsWith(own));
  t.ok((await sampleUrl(srv, key.key, { host: 'api.example.com:8443' })).startsWith('http://api.example.com:8443/api/v1/voices/'), 'a well-formed Host is how the client reached us');
});

t.test('trustProxy: true honours X-Forwarded-Proto/-Host, but only http/https and host syntax', async (t) => {
  const srv = await startServer(t, { config: configWith(true) });
  const { key } = await srv.client();
  t.ok((await sampleUrl(srv, key.key, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).startsWith('https://api.example.com/api/v1/voices/'));
  t.ok((await sampleUrl(srv, key.key, { 'x-forwarded-proto': 'HTTPS', 'x-forwarded-host': 'client.example, api.example.com:443' })).startsWith('https://api.example.com:443/'), 'the nearest proxy (last entry) wins');
  const fooled = await sampleUrl(srv, key.key, evil);
  t.ok(fooled.startsWith('http://evil.example/'), `a non-http scheme is not taken (${fooled})`);
  for (const host of ['evil.example/path', 'javascript:alert(1)', 'a b', 'x.example:99999', `${'h'.repeat(300)}.example`]) {
    const url = await sampleUrl(srv, key.key, { 'x-forwarded-proto': 'https', 'x-forwarded-host': host });
    t.ok(url.startsWith(`https://127.0.0.1:${new URL(srv.base).port}/api/v1/voices/`), `host ${JSON.stringify(host.slice(0, 30))} refused: ${url.slice(0, 60)}`);
  }
});

t.test('trustProxy naming other addresses: headers from this peer are ignored', async (t) => {
  const srv = await startServer(t, { config: configWith('10.9.8.7,192.168.0.0/16') });
  const { key } = await srv.client();
  t.ok((await sampleUrl(srv, key.key, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).startsWith(`http://127.0.0.1:${new URL(srv.base).port}/`));
});
