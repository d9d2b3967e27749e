import t from 'tap';
import { startServer, SENTENCE } from '../helpers/server.js';
import { injectFetch } from './inject.js';

const srv = await startServer(t);
const fetch = injectFetch(srv);
const { headers, account } = await srv.client({ plan: 'enterprise', balance: '10' });
const post = (path, body, h = headers) => fetch(`${srv.api}${path}`, { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) });
const good = { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false };

async function expectError(t, res, status, code, pattern) {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.ok(res.headers.get('x-request-id'), 'x-request-id present');
  const body = await res.json();
  t.equal(body.errorCode, code, `errorCode ${code}`);
  t.equal(typeof body.errorCode, 'number');
  if (pattern) t.match(body.errorMessage, pattern);
  return body;
}

const cases = [
  ['missing voice_id', { ...good, voice_id: undefined }, /voice_id is required/],
  ['missing text', { ...good, text: undefined }, /text is required/],
  ['text with too few words', { ...good, text: 'مرحبا بالعالم' }, /at least 3 words and 10 characters/],
  ['text with too few characters', { ...good, text: 'ا ب ت ث' }, /at least 3 words and 10 characters/],
  ['whitespace-only text', { ...good, text: '     ' }, /text is required/],
  ['stability missing', { ...good, stability: undefined }, /stability must be a number between 0 and 1/],
  ['stability above 1', { ...good, stability: 1.5 }, /stability must be a number between 0 and 1/],
  ['stability as a string', { ...good, stability: '0.5' }, /stability must be a number between 0 and 1/],
  ['speed below 0.7', { ...good, speed: 0.5 }, /speed must be a number between 0.7 and 1.2/],
  ['speed above 1.2', { ...good, speed: 3 }, /speed must be a number between 0.7 and 1.2/],
  ['streaming missing', { ...good, streaming: undefined }, /streaming must be a boolean/],
  ['streaming not a boolean', { ...good, streaming: 'yes' }, /streaming must be a boolean/],
  ['text too long', { ...good, text: 'كلمة '.repeat(2000) }, /too long/],
];
for (const [name, body, pattern] of cases) {
  t.test(`400 40001: ${name}`, async (t) => expectError(t, await post('/text-to-speech/sawt-mini', body), 400, 40001, pattern));
}

t.test('malformed JSON and wrong content type are 400 40001, never 500', async (t) => {
  await expectError(t, await post('/text-to-speech/sawt-mini', '{"text": '), 400, 40001, /not valid JSON/);
  await expectError(t, await post('/text-to-speech/sawt-mini', '[1,2]'), 400, 40001);
  await expectError(t, await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': headers['x-api-key'], 'content-type': 'text/plain' }, body: 'hello' }), 400, 40001);
  await expectError(t, await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': headers['x-api-key'] } }), 400, 40001);
});

t.test('unknown model is 404 40401 naming the model', async (t) => {
  await expectError(t, await post('/text-to-speech/no-such-model', good), 404, 40401, /no-such-model/);
});

t.test('unknown voice is 404 40401 naming the voice', async (t) => {
  await expectError(t, await post('/text-to-speech/sawt-mini', { ...good, voice_id: 'nobody' }), 404, 40401, /nobody/);
});

t.test('unknown endpoint is 404 40401 JSON', async (t) => {
  await expectError(t, await fetch(`${srv.api}/nothing-here`, { headers }), 404, 40401, /not found/i);
  await expectError(t, await fetch(`${srv.base}/elsewhere`), 404, 40401);
});

t.test('authentication failures are 401 40101', async (t) => {
  const { 'x-api-key': _, ...noKey } = headers;
  await expectError(t, await post('/text-to-speech/sawt-mini', good, noKey), 401, 40101);
  await expectError(t, await post('/text-to-speech/sawt-mini', good, { ...noKey, 'x-api-key': 'garbage' }), 401, 40101);
  await expectError(t, await post('/text-to-speech/sawt-mini', good, { ...noKey, 'x-api-key': 'sawt_' + 'x'.repeat(40) }), 401, 40101);
  await expectError(t, await fetch(`${srv.api}/models`), 401, 40101);
  await expectError(t, await fetch(`${srv.api}/voices`, { headers: { 'x-api-key': '' } }), 401, 40101);
});

t.test('Authorization: Bearer is accepted as well as x-api-key', async (t) => {
  const res = await fetch(`${srv.api}/models`, { headers: { authorization: `Bearer ${headers['x-api-key']}` } });
  t.equal(res.status, 200);
});

t.test('insufficient balance is 402 40201 with required and available amounts, and charges nothing', async (t) => {
  const poor = await srv.client({ plan: 'enterprise', balance: '0.001' });
  const res = await post('/text-to-speech/sawt-mini', good, poor.headers);
  await expectError(t, res, 402, 40201, /required 0\.00\d+.*available 0\.001/);
  const b = await srv.balance(poor.account.id);
  t.equal(b.balance, 1000);
  t.equal(b.reserved, 0);
});

t.test('a failed request takes no money', async (t) => {
  const before = await srv.balance(account.id);
  await post('/text-to-speech/sawt-mini', { ...good, voice_id: 'nobody' });
  await post('/text-to-speech/sawt-mini', { ...good, speed: 9 });
  const after = await srv.balance(account.id);
  t.same(after, before);
});
