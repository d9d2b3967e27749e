import { readFileSync } from 'node:fs';
import t from 'tap';
import { ManualClock, tokens } from '@sawt/core';
import { startServer, defaultConfigPath, SENTENCE, LONG_TEXT } from '../helpers/server.js';

// A config with a second, granted-only model and a tight per-key rate limit.
const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine');
engine.options.models.push({ model_id: 'sawt-mini-pro', model_name: 'Sawt Mini Pro', engine: 'espeak', cost_per_char: 0.0002, access: 'granted' });
for (const v of engine.options.voices) v.models = ['sawt-mini', 'sawt-mini-pro'];
config.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60000, max: 5 };

// Time as the server sees it (key expiry, rate windows, leases) moves only when a test advances it.
const clock = new ManualClock(Date.now());
const srv = await startServer(t, { config, clock });
const good = { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false };
const post = (h, body = good, model = 'sawt-mini') => fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify(body) });
const errorOf = async (res) => ({ status: res.status, ...(await res.json()) });

t.test('a key restricted to some endpoints gets 403 40302 elsewhere', async (t) => {
  const acc = await srv.createAccount();
  const k = await srv.createKey(acc.id, { endpoints: ['models', 'voices'] });
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': k.key } })).status, 200);
  t.equal((await fetch(`${srv.api}/voices`, { headers: { 'x-api-key': k.key } })).status, 200);
  const e = await errorOf(await post({ 'x-api-key': k.key }));
  t.equal(e.status, 403);
  t.equal(e.errorCode, 40302);
  t.match(e.errorMessage, /tts/);
});

t.test('expired, revoked and deleted keys get 401 40101', async (t) => {
  const acc = await srv.createAccount();
  const expired = await srv.createKey(acc.id, { expiresAt: new Date(clock.now() + 1000).toISOString() });
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': expired.key } })).status, 200, 'works before it expires');
  await clock.advance(999);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': expired.key } })).status, 200, 'and 1 ms before');
  await clock.advance(1);
  const x = await errorOf(await fetch(`${srv.api}/models`, { headers: { 'x-api-key': expired.key } }));
  t.equal(x.status, 401);
  t.equal(x.errorCode, 40101);
  t.match(x.errorMessage, /expired/i);
  const born = await srv.createKey(acc.id, { expiresAt: '2020-01-01T00:00:00Z' });
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': born.key } })).status, 401, 'a key created with a past expiry is refused');
  const future = await srv.createKey(acc.id, { expiresAt: new Date(clock.now() + 3600e3).toISOString() });
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': future.key } })).status, 200, 'a key expiring later works');

  const revoked = await srv.createKey(acc.id);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': revoked.key } })).status, 200);
  await srv.app.get(tokens.apiKeys).revoke(revoked.id);
  const r = await errorOf(await fetch(`${srv.api}/models`, { headers: { 'x-api-key': revoked.key } }));
  t.equal(r.status, 401);
  t.equal(r.errorCode, 40101);

  const deleted = await srv.createKey(acc.id);
  await srv.app.get(tokens.apiKeys).delete(deleted.id);
  const d = await errorOf(await fetch(`${srv.api}/models`, { headers: { 'x-api-key': deleted.key } }));
  t.equal(d.status, 401);
  t.equal(d.errorCode, 40101);
});

t.test('a key character quota stops synthesis with 429 42903 and counts only successful work', async (t) => {
  const acc = await srv.createAccount();
  const chars = [...SENTENCE].length;
  const k = await srv.createKey(acc.id, { quotaChars: chars * 2 });
  const h = { 'x-api-key': k.key };
  t.equal((await post(h, { ...good, voice_id: 'nobody' })).status, 404, 'failed request');
  t.equal((await post(h)).status, 200);
  t.equal((await post(h)).status, 200);
  const e = await errorOf(await post(h));
  t.equal(e.status, 429);
  t.equal(e.errorCode, 42903);
});

t.test('a model enabled per account: 403 40301 until granted', async (t) => {
  const acc = await srv.createAccount();
  const k = await srv.createKey(acc.id);
  const h = { 'x-api-key': k.key };
  const e = await errorOf(await post(h, good, 'sawt-mini-pro'));
  t.equal(e.status, 403);
  t.equal(e.errorCode, 40301);
  t.match(e.errorMessage, /sawt-mini-pro/);
  await srv.app.get(tokens.accounts).grantModel(acc.id, 'sawt-mini-pro');
  const ok = await post(h, good, 'sawt-mini-pro');
  t.equal(ok.status, 200);
  await ok.arrayBuffer();
  const b = await srv.balance(acc.id);
  t.equal(100_000_000 - b.balance, [...SENTENCE].length * 200, 'charged at the granted model price');
});

t.test('request rate per key: 429 42902 with Retry-After past the window budget', async (t) => {
  const acc = await srv.createAccount();
  const k = await srv.createKey(acc.id);
  const statuses = [];
  let last;
  for (let i = 0; i < 7; i++) {
    last = await fetch(`${srv.api}/models`, { headers: { 'x-api-key': k.key } });
    statuses.push(last.status);
    if (last.status === 429) break;
    await last.arrayBuffer();
  }
  t.same(statuses, [200, 200, 200, 200, 200, 429]);
  t.equal(last.headers.get('retry-after'), '60', 'Retry-After: the whole 60 s window is left (the clock has not moved)');
  const body = await last.json();
  t.equal(body.errorCode, 42902);
  await clock.advance(59_999);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': k.key } })).status, 429, '1 ms before the window ends: still refused');
  await clock.advance(1);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': k.key } })).status, 200, 'a new window: served again');
});

t.test('plan concurrency: a free account gets 429 42901 while a request runs', async (t) => {
  const free = await srv.client({ plan: 'free', balance: '10' });
  const h = { 'x-api-key': free.key.key };
  const first = await post(h, { ...good, text: LONG_TEXT.repeat(8), streaming: true });
  t.equal(first.status, 200);
  const reader = first.body.getReader();
  await reader.read();
  const e = await errorOf(await post(h));
  t.equal(e.status, 429);
  t.equal(e.errorCode, 42901);
  t.match(e.errorMessage, /1 concurrent request/);
  t.match(e.errorMessage, /\b1\b.*in progress/);
  while (!(await reader.read()).done);
  // Slot freed once the first finished.
  let again;
  for (let i = 0; i < 20; i++) {
    again = await post(h);
    if (again.status !== 429) break;
    await again.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(again.status, 200);
  await again.arrayBuffer();
});

t.test('a basic account runs 2 at once, the third gets 42901', async (t) => {
  const basic = await srv.client({ plan: 'basic', balance: '10' });
  const h = { 'x-api-key': basic.key.key };
  const a = await post(h, { ...good, text: LONG_TEXT.repeat(8), streaming: true });
  const b = await post(h, { ...good, text: LONG_TEXT.repeat(8), streaming: true });
  t.equal(a.status, 200);
  t.equal(b.status, 200);
  const e = await errorOf(await post(h));
  t.equal(e.errorCode, 42901);
  t.match(e.errorMessage, /2 concurrent requests/);
  await a.body.cancel();
  await b.body.cancel();
});
