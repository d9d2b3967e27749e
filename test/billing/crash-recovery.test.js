// A real server killed with -9 while it streams, then restarted on the same data
// dir: what the dead process had reserved (money and the key's characters) comes
// back at the restart, not an hour later, and the ledger says why.
import t from 'tap';
import { LONG_TEXT, tempDir } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { ready } from '../helpers/ws.js';

t.test('kill -9 mid-stream, then restart: nothing stays reserved, money and quota come back, the ledger shows it', async (t) => {
  const dataDir = tempDir(t);
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' };
  const first = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Crash', '--plan', 'enterprise', '--balance', '50');
  const key = await sawtJson(env, 'keys', 'create', '--account', acc.id, '--quota-chars', '100000');
  const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
  const tts = (text, streaming) => fetch(`${first.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text, stability: 0.5, streaming }) });

  // Three kinds of work in flight: an HTTP stream read once, a WAV nobody reads, a WebSocket piece whose client stopped reading.
  const streamed = await tts(LONG_TEXT.repeat(10), true);
  t.equal(streamed.status, 200);
  const reader = streamed.body.getReader();
  t.ok((await reader.read()).value.length > 0, 'the stream has started');
  const wav = await tts(LONG_TEXT.repeat(20), false);
  t.equal(wav.status, 200, 'the WAV is being sent to a client that does not read');
  const ws = await ready(first, key.key);
  ws.send({ type: 'text', text: LONG_TEXT.repeat(20), flush: true });
  await ws.until(() => ws.audio().length > 0);
  ws.ws._socket.pause();

  const open = (ledger) => {
    const closed = new Set(ledger.filter((e) => e.kind === 'settle' || e.kind === 'release').map((e) => e.reservation_id));
    return ledger.filter((e) => e.kind === 'reserve' && !closed.has(e.reservation_id));
  };
  const held = open(await sawtJson(env, 'wallet', 'ledger', '--account', acc.id));
  t.equal(held.length, 3, 'three reservations open while the work runs');
  const during = await sawtJson(env, 'wallet', 'show', '--account', acc.id);
  t.equal(during.reserved, Number(held.reduce((s, e) => s + e.amount, 0).toFixed(6)), 'their money is reserved');
  t.ok((await sawtJson(env, 'keys', 'list', '--account', acc.id))[0].used_chars > 0, "and the key's characters are held");

  first.kill('SIGKILL');
  t.match(await first.exited, { signal: 'SIGKILL' });
  reader.cancel().catch(() => {});
  wav.body.cancel().catch(() => {});

  const second = await spawnServer(t, env);
  t.match(second.output(), /"released":3,.*released wallet reservations whose owner is gone/, 'the restarted server released them while starting');
  t.same(await sawtJson(env, 'wallet', 'show', '--account', acc.id), { account_id: acc.id, balance: 50, reserved: 0, available: 50 }, 'nothing reserved, no money taken');
  t.equal((await sawtJson(env, 'keys', 'list', '--account', acc.id))[0].used_chars, 0, "the key's characters are back");
  const ledger = await sawtJson(env, 'wallet', 'ledger', '--account', acc.id);
  t.same(open(ledger), [], 'every reservation is closed');
  const releases = ledger.filter((e) => e.kind === 'release');
  t.same(releases.map((e) => e.reservation_id).sort(), held.map((e) => e.reservation_id).sort(), 'one release per held reservation');
  t.ok(releases.every((e) => new RegExp(`^owner process ${first.pid} on node .+ is gone$`).test(e.description)), `the ledger says why: ${releases[0].description}`);
  t.notOk(ledger.some((e) => e.kind === 'settle'), 'nothing was charged for undelivered audio');

  const after = await fetch(`${second.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: LONG_TEXT, stability: 0.5, streaming: false }) });
  t.equal(after.status, 200, 'the account works at once with its whole balance');
  await after.arrayBuffer();
  second.kill('SIGTERM');
  await second.exited;
});
