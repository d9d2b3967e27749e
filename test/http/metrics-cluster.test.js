// GET /metrics of `sawt serve --workers 2` (the default on 2 cores): whichever worker answers the
// scrape, it counts the requests of every worker (the primary sums the workers' registries).
// Before, a scrape showed the counts of the worker that answered it, about 60 % of the truth.
import { request } from 'node:http';
import t from 'tap';
import { pollUntil, spawnServe, tempDir } from '../helpers/server.js';

/** One request on a connection of its own (connections, not requests, are spread over the workers). */
function get(base, path) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject).end();
  });
}

const count = (text, route, status) => {
  const line = text.split('\n').find((l) => l.startsWith(`sawt_http_requests_total{method="GET",route="${route}",status="${status}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

t.test('sawt serve --workers 2: /metrics counts the requests of both workers', async (t) => {
  const env = { ...process.env, SAWT_DATA_DIR: tempDir(t), SAWT_WORKERS: '2' };
  delete env.SAWT_CONFIG;
  const { base, healthy, output } = await spawnServe(t, { env });
  t.ok(healthy, 'the server answers');
  await pollUntil('both workers listening', () => output().split('Sawt HTTP API listening').length - 1 >= 2, 60_000, 100);

  const N = 40;
  for (let i = 0; i < N; i += 8) {
    const batch = await Promise.all(Array.from({ length: Math.min(8, N - i) }, () => get(base, '/api/v1/models')));
    t.ok(batch.every((r) => r.status === 401), 'each answered (401: no key)');
  }
  // Several scrapes, each on a new connection, so that both workers answer some of them.
  for (let s = 0; s < 6; s++) {
    const m = await get(base, '/metrics');
    t.equal(m.status, 200);
    t.equal(count(m.body, '/api/v1/models', 401), N, `scrape ${s + 1}: all ${N} requests counted`);
    t.notMatch(m.body, /could not be gathered/, 'every worker reported');
    t.equal(count(m.body, '/metrics', 200), s, `scrape ${s + 1}: the scrapes before it counted`);
  }
});
