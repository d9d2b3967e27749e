// Keys stay live on open WebSockets: a key revoked or deleted by the operator's
// CLI (another process), or one that expires, while its socket is open gets
// 40101 at its next generation, no more audio, and close 1008.
import t from 'tap';
import { LONG_TEXT, SENTENCE, tempDir } from '../helpers/server.js';
import { freePort, sawtCli, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { ready, sleep } from '../helpers/ws.js';

t.test('revoked, deleted and expired keys on open sockets: 40101, no more audio, close 1008', async (t) => {
  const dataDir = tempDir(t);
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' };
  const srv = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Live keys', '--plan', 'enterprise', '--balance', '50');
  const revoked = await sawtJson(env, 'keys', 'create', '--account', acc.id);
  const cliStarted = Date.now();
  const deleted = await sawtJson(env, 'keys', 'create', '--account', acc.id);
  // Created last and connected first, with a lifetime that covers its own creation by the CLI (three
  // times the last one's), its connection and its first flush, however loaded the machine is.
  const lifetime = 30_000 + 3 * (Date.now() - cliStarted);
  const expiring = await sawtJson(env, 'keys', 'create', '--account', acc.id, '--expires-at', new Date(Date.now() + lifetime).toISOString());

  const sockets = {};
  for (const [name, key] of Object.entries({ expiring, revoked, deleted })) {
    const c = await ready(srv, key.key);
    t.ok(c.messages.some((m) => m.type === 'connectionInitialized'), `${name}: initialized`);
    c.send({ type: 'text', text: SENTENCE, flush: true });
    await c.until(() => c.audio().some((m) => m.isFinal));
    sockets[name] = c;
  }

  t.equal((await sawtCli(env, 'keys', 'revoke', '--id', revoked.id)).code, 0);
  t.equal((await sawtCli(env, 'keys', 'delete', '--id', deleted.id)).code, 0);
  const expiresIn = Date.parse(expiring.expires_at) - Date.now();
  if (expiresIn > 0) await sleep(expiresIn + 200);

  for (const [name, c] of Object.entries(sockets)) {
    const before = c.audio().length;
    c.send({ type: 'text', text: LONG_TEXT, flush: true });
    const code = await c.closed;
    const errs = c.errors();
    t.equal(errs.length, 1, `${name}: one error message`);
    t.equal(errs[0]?.errorCode, 40101, `${name}: ${errs[0]?.errorMessage}`);
    t.equal(code, 1008, `${name}: closed 1008`);
    t.equal(c.audio().length, before, `${name}: no more audio`);
  }
  const wallet = await sawtJson(env, 'wallet', 'show', '--account', acc.id);
  t.equal(wallet.reserved, 0, 'nothing reserved for refused text');
});
