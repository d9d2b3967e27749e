// Findings (issue 28, item 9, the part of this file): a key deleted while its WebSocket was not
// reading got five identical 40101 messages; a JSON body with a `__proto__` key was answered
// "not valid JSON"; `sawt keys create --expires-at 2000-01-01` was accepted silently.
import t from 'tap';
import { LONG_TEXT, tempDir } from '../helpers/server.js';
import { freePort, sawtCli, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { ready, sleep } from '../helpers/ws.js';

t.test('small things against a running sawt serve', async (t) => {
  const dataDir = tempDir(t);
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' };
  const srv = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'small', '--plan', 'enterprise', '--balance', '50');

  await t.test('a key deleted while its WebSocket is not reading: 40101 once, then close 1008', async (t) => {
    const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);
    const c = await ready(srv, key.key);
    t.ok(c.messages.some((m) => m.type === 'connectionInitialized'));
    c.send({ type: 'text', text: Array(10).fill(LONG_TEXT).join(' '), flush: true });
    await c.until(() => c.audio().length > 0);
    // The client stops reading: what the server sends piles up in the socket buffers.
    c.ws._socket.pause();
    t.equal((await sawtCli(env, 'keys', 'delete', '--id', key.id)).code, 0);
    // Several key checks (one a second) pass while the client is not reading.
    await sleep(5000);
    c.ws._socket.resume();
    const code = await c.closed;
    const errs = c.errors();
    t.same(errs.map((e) => e.errorCode), [40101], `one error message: ${errs[0]?.errorMessage}`);
    t.equal(code, 1008, 'closed 1008');
  });

  await t.test('a JSON body with a __proto__ key: 400 (40001) naming the key', async (t) => {
    const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);
    const body = '{"voice_id":"fusha-omar","text":"مرحبا","__proto__":{"admin":true}}';
    const r = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body });
    const json = await r.json();
    t.equal(r.status, 400);
    t.equal(json.errorCode, 40001);
    t.match(json.errorMessage, /"__proto__"/, json.errorMessage);
    t.notMatch(json.errorMessage, /not valid JSON/);
    const wallet = await sawtJson(env, 'wallet', 'show', '--account', acc.id);
    t.equal(wallet.reserved, 0, 'nothing reserved');
  });

  await t.test('keys create --expires-at in the past: exit 1, one line, no key', async (t) => {
    const before = (await sawtJson(env, 'keys', 'list', '--account', acc.id)).length;
    const r = await sawtCli(env, 'keys', 'create', '--account', acc.id, '--expires-at', '2000-01-01');
    t.equal(r.code, 1);
    t.equal(r.stdout, '');
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line');
    t.match(r.stderr, /--expires-at 2000-01-01T00:00:00\.000Z is in the past/);
    t.equal((await sawtJson(env, 'keys', 'list', '--account', acc.id)).length, before, 'no key was made');
  });
});
