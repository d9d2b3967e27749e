import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startServer, tempDir, repoRoot, SENTENCE } from '../helpers/server.js';

const run = promisify(execFile);
const bin = path.join(repoRoot, 'packages/cli/bin/sawt.js');

function cli(env, ...args) {
  return run(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd: repoRoot }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
const json = (r) => JSON.parse(r.stdout);

const dataDir = tempDir(t);
const env = { SAWT_DATA_DIR: dataDir, SAWT_MODELS_DIR: path.join(dataDir, 'models') };
// The server runs in this process on the same data dir while the CLI works in others.
const srv = await startServer(t, { runtime: { dataDir, modelsDir: env.SAWT_MODELS_DIR } });

t.test('accounts, keys and wallet through the CLI, used at once by the running server', async (t) => {
  const acc = await cli(env, 'accounts', 'create', '--name', 'Acme', '--plan', 'starter', '--balance', '12.5', '--json');
  t.equal(acc.code, 0, acc.stderr);
  const a = json(acc);
  t.same(Object.keys(a).sort(), ['balance', 'id', 'name', 'plan']);
  t.same({ name: a.name, plan: a.plan, balance: a.balance }, { name: 'Acme', plan: 'starter', balance: 12.5 });

  const key = json(await cli(env, 'keys', 'create', '--account', a.id, '--endpoints', 'models,tts', '--quota-chars', '5000', '--json'));
  t.match(key.key, /^sawt_[A-Za-z0-9]{40}$/);
  t.ok(key.id);
  // Read the database file from another process: closing any descriptor on an open
  // SQLite file in the server's own process would drop its POSIX locks.
  const scan = await run(process.execPath, ['-e', 'const fs=require("fs");const d=process.argv[1];let hit=false;for(const f of fs.readdirSync(d))if(f.startsWith("sawt.db")&&fs.readFileSync(d+"/"+f).includes(Buffer.from(process.argv[2])))hit=true;process.stdout.write(String(hit))', dataDir, key.key]);
  t.equal(scan.stdout, 'false', 'the secret is not stored in the database (nor its WAL)');
  const listed = json(await cli(env, 'keys', 'list', '--account', a.id, '--json'));
  t.notOk(JSON.stringify(listed).includes(key.key), 'the secret is never shown again');

  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': key.key } })).status, 200, 'server accepts the key');
  t.equal((await fetch(`${srv.api}/voices`, { headers: { 'x-api-key': key.key } })).status, 403, 'endpoint scope applied');
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'najdi-faisal', text: SENTENCE, stability: 0.3, streaming: false }) });
  t.equal(res.status, 200);
  await res.arrayBuffer();

  const shown = json(await cli(env, 'wallet', 'show', '--account', a.id, '--json'));
  t.equal(shown.balance, Number((12.5 - [...SENTENCE].length * 0.0001).toFixed(6)), 'charge visible to the CLI');
  const topped = json(await cli(env, 'wallet', 'topup', '--account', a.id, '--amount', '0.75', '--json'));
  t.equal(topped.balance, Number((shown.balance + 0.75).toFixed(6)));

  t.equal((await cli(env, 'keys', 'revoke', '--id', key.id, '--json')).code, 0);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': key.key } })).status, 401, 'revoked key refused');
  const k2 = json(await cli(env, 'keys', 'create', '--account', a.id, '--json'));
  t.equal((await cli(env, 'keys', 'delete', '--id', k2.id, '--json')).code, 0);
  t.equal((await fetch(`${srv.api}/models`, { headers: { 'x-api-key': k2.key } })).status, 401, 'deleted key refused');
});

t.test('models list and grant', async (t) => {
  const models = json(await cli(env, 'models', 'list', '--json'));
  const mini = models.find((m) => m.model_id === 'sawt-mini');
  t.match(mini, { engine: 'espeak', cost_per_char: 0.0001, access: 'public' });
  const a = json(await cli(env, 'accounts', 'create', '--name', 'B', '--plan', 'free', '--balance', '1', '--json'));
  const g = await cli(env, 'models', 'grant', '--account', a.id, '--model', 'sawt-mini', '--json');
  t.equal(g.code, 0, g.stderr);
  t.match(json(g), { account_id: a.id, model_id: 'sawt-mini', granted: true });
  const bad = await cli(env, 'models', 'grant', '--account', a.id, '--model', 'nope', '--json');
  t.not(bad.code, 0);
  t.match(bad.stderr, /Model 'nope' not found/);
});

t.test('failures exit non-zero with one line on stderr and nothing on stdout', async (t) => {
  const cases = [
    ['accounts', 'create', '--name', 'X', '--plan', 'platinum', '--balance', '1', '--json'],
    ['accounts', 'create', '--plan', 'free', '--json'],
    ['accounts', 'create', '--name', 'X', '--plan', 'free', '--balance', 'ten', '--json'],
    ['keys', 'create', '--account', 'no-such-account', '--json'],
    ['keys', 'create', '--account', 'x', '--endpoints', 'models,everything', '--json'],
    ['keys', 'revoke', '--id', 'no-such-key', '--json'],
    ['wallet', 'show', '--account', 'no-such-account', '--json'],
    ['wallet', 'topup', '--account', 'x', '--amount', '-5', '--json'],
    ['frobnicate', '--json'],
  ];
  for (const args of cases) {
    const r = await cli(env, ...args);
    t.not(r.code, 0, args.join(' '));
    t.equal(r.stdout, '', 'no stdout');
    t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr.trim()}`);
  }
});

t.test('accounts create: --balance 0 is valid, and a refused create leaves nothing a retry could duplicate', async (t) => {
  const count = async () => json(await cli(env, 'accounts', 'list', '--json')).length;
  const before = await count();
  const zero = await cli(env, 'accounts', 'create', '--name', 'Zero', '--plan', 'free', '--balance', '0', '--json');
  t.equal(zero.code, 0, zero.stderr);
  t.match(json(zero), { name: 'Zero', plan: 'free', balance: 0 });
  t.same(json(await cli(env, 'wallet', 'ledger', '--account', json(zero).id, '--json')), [], 'no movement for an empty opening balance');
  for (const bad of [['--name', 'x'.repeat(201), '--balance', '5'], ['--name', '   ', '--balance', '5'], ['--name', 'Huge', '--balance', '99999999999999']]) {
    const r = await cli(env, 'accounts', 'create', '--plan', 'free', ...bad, '--json');
    t.not(r.code, 0, `refused: ${r.stderr.trim()}`);
  }
  t.equal(await count(), before + 1, 'only the successful create made an account');
});

t.test('human-readable output escapes control characters; --json stays exact JSON', async (t) => {
  const name = 'Evil\u001b[31mRed\u0007\r\n00000000-0000-0000-0000-000000000000  enterprise  999999  forged\u202e';
  const created = await cli(env, 'accounts', 'create', '--name', name, '--plan', 'free', '--balance', '1');
  t.equal(created.code, 0, created.stderr);
  t.equal(created.stdout.split('\n').length, 2, 'one line and its newline');
  t.match(created.stdout, /Evil\\e\[31mRed\\x07\\r\\n00000000/);
  const list = await cli(env, 'accounts', 'list');
  const asJson = json(await cli(env, 'accounts', 'list', '--json'));
  t.ok(asJson.some((a) => a.name === name), 'JSON keeps the name byte for byte');
  t.equal(list.stdout.trim().split('\n').length, asJson.length, 'one line per account: no forged lines');
  t.notOk(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/.test(list.stdout), 'no raw control characters reach the terminal');
  t.match(list.stdout, /\\u202e/);
  const missing = await cli(env, 'wallet', 'show', '--account', '\u001b]0;pwned\u0007');
  t.equal(missing.stderr, "sawt: Account '\\e]0;pwned\\x07' not found\n", 'error messages are escaped too');
});

t.test('wallet ledger: every movement of a request, in both forms', async (t) => {
  const a = json(await cli(env, 'accounts', 'create', '--name', 'Ledger', '--plan', 'starter', '--balance', '2', '--json'));
  const key = json(await cli(env, 'keys', 'create', '--account', a.id, '--json'));
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false }) });
  t.equal(res.status, 200);
  await res.arrayBuffer();
  const requestId = res.headers.get('x-request-id');
  const cost = Number(([...SENTENCE].length * 0.0001).toFixed(6));
  const entries = json(await cli(env, 'wallet', 'ledger', '--account', a.id, '--json'));
  t.match(entries, [
    { kind: 'topup', amount: 2, balance_after: 2, request_id: null },
    { kind: 'reserve', amount: cost, balance_after: 2, request_id: requestId, reservation_id: /^[0-9a-f-]{36}$/ },
    { kind: 'settle', amount: cost, balance_after: Number((2 - cost).toFixed(6)), request_id: requestId },
  ]);
  t.equal(entries.length, 3);
  const text = await cli(env, 'wallet', 'ledger', '--account', a.id);
  t.equal(text.code, 0);
  t.equal(text.stdout.trim().split('\n').length, 3, 'one line per movement');
  t.match(text.stdout, new RegExp(`settle .*${requestId}`));
  t.equal(json(await cli(env, 'wallet', 'ledger', '--account', a.id, '--limit', '1', '--json')).length, 1, '--limit keeps the latest');
  t.not((await cli(env, 'wallet', 'ledger', '--account', a.id, '--limit', '0')).code, 0);
  t.not((await cli(env, 'wallet', 'ledger', '--account', 'nobody')).code, 0);
});
