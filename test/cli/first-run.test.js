// The first ten minutes of a new user: `sawt serve --port` says what to do next (once, whatever
// the number of workers), and what it says works: the account and key commands, the curl line,
// the /docs and /playground pages; GET / links to them; the log reads well on a terminal
// (SAWT_LOG_FORMAT=pretty) and stays JSON for collectors; `sawt backup` copies the database while
// the server writes to it.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import t from 'tap';
import { freePort, parseWav, pcmStats, pollUntil, repoRoot, sawtBin, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const sqlite3 = createRequire(path.join(repoRoot, 'plugins/storage/package.json'))('sqlite3');

/** `sawt serve ARGS` in a process of its own; resolves once `ready(output)` holds. */
async function serve(t, args, env, ready) {
  const child = spawn(process.execPath, [sawtBin, 'serve', ...args], { env, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  t.teardown(() => child.kill('SIGKILL'));
  await pollUntil('the server to be ready', () => ready(out) || child.exitCode !== null, 90_000, 100);
  return { child, out };
}

function baseEnv(t) {
  const env = { ...process.env, SAWT_DATA_DIR: tempDir(t) };
  for (const k of ['SAWT_CONFIG', 'SAWT_PORT', 'SAWT_WORKERS', 'SAWT_LOG_FORMAT']) delete env[k];
  return env;
}

t.test('sawt serve --port P --workers 2: the next steps once, and each of them works', async (t) => {
  const env = baseEnv(t);
  const port = await freePort();
  const { out } = await serve(t, ['--port', String(port), '--workers', '2'], env, (o) => /Playground: /.test(o.stderr) && o.stdout.split('Sawt HTTP API listening').length === 3);
  const base = `http://127.0.0.1:${port}`;
  t.equal(out.stderr.split('Next steps').length - 1, 1, 'printed once, not once per worker');
  t.match(out.stderr, `Sawt is listening on ${base} (2 workers)`);
  t.notMatch(out.stdout, /Next steps/, 'stdout stays the JSON log');
  for (const line of out.stdout.trim().split('\n')) JSON.parse(line); // off a terminal the log is JSON

  // Step 1: the printed commands, with the same environment, make an account and a key.
  const commands = [...out.stderr.matchAll(/^ {7}(.*npx sawt .*)$/gm)].map((m) => m[1]);
  t.equal(commands.length, 2, 'an account command and a key command');
  t.match(commands[0], `SAWT_DATA_DIR=${env.SAWT_DATA_DIR} npx sawt accounts create`);
  const sh = (line, extra = {}) => run('bash', ['-c', line.replace(/npx sawt /, `${JSON.stringify(process.execPath)} ${JSON.stringify(sawtBin)} `)], { env: { ...env, ...extra }, cwd: repoRoot });
  const account = JSON.parse((await sh(commands[0])).stdout);
  const key = JSON.parse((await sh(commands[1].replace('ACCOUNT_ID', account.id))).stdout);
  t.match(key.key, /^sawt_/);

  // Step 2: the curl line, as printed, with KEY set.
  const curl = out.stderr.slice(out.stderr.indexOf('curl -s'), out.stderr.indexOf('-o hello.wav') + '-o hello.wav'.length);
  const dir = tempDir(t);
  await run('bash', ['-c', curl], { env: { ...env, KEY: key.key }, cwd: dir });
  const wav = parseWav(await import('node:fs').then((fs) => fs.readFileSync(path.join(dir, 'hello.wav'))));
  t.equal(wav.riff, 'RIFF', 'hello.wav is a WAV');
  t.ok(pcmStats(wav.data).rms > 300, 'with speech in it');

  // Step 3: the pages.
  for (const page of ['/docs', '/playground']) {
    t.match(out.stderr, `${base}${page}`);
    const r = await fetch(`${base}${page}`);
    t.equal(r.status, 200, `${page} answers`);
    t.match(r.headers.get('content-type'), /text\/html/);
  }

  // GET /: links instead of a 404, JSON or a page by the Accept header.
  const json = await fetch(`${base}/`);
  t.equal(json.status, 200);
  t.match(json.headers.get('content-type'), /application\/json/);
  const links = (await json.json()).links;
  t.equal(links.docs.href, `${base}/docs`);
  t.equal(links.playground.href, `${base}/playground`);
  t.equal(links.openapi.href, `${base}/api/v1/openapi.json`);
  const html = await fetch(`${base}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  t.equal(html.status, 200);
  t.match(html.headers.get('content-type'), /text\/html/);
  const page = await html.text();
  for (const href of ['/docs', '/playground', '/api/v1/openapi.json']) t.match(page, `href="${href}"`);
});

t.test('--port must be a port number', async (t) => {
  const r = await run(process.execPath, [sawtBin, 'serve', '--port', '99999'], { env: baseEnv(t) }).catch((e) => e);
  t.equal(r.code, 2);
  t.match(r.stderr, /^sawt: --port must be an integer from 0 to 65535 but received "99999"/);
});

t.test('SAWT_LOG_FORMAT=pretty: pino-pretty lines; unknown formats are refused', async (t) => {
  const env = { ...baseEnv(t), SAWT_LOG_FORMAT: 'pretty', SAWT_WORKERS: '1' };
  const port = await freePort();
  const { out } = await serve(t, ['--port', String(port)], env, (o) => /Playground: /.test(o.stderr));
  t.match(out.stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Sawt HTTP API listening$/m, 'time, level and message on one line');
  t.match(out.stdout, /^ {4}address: "http:\/\/127\.0\.0\.1:\d+"$/m, 'the fields below it');
  t.notMatch(out.stdout, /^\{"level"/m, 'no JSON lines');
  const bad = await run(process.execPath, [sawtBin, 'serve'], { env: { ...env, SAWT_LOG_FORMAT: 'xml' } }).catch((e) => e);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /SAWT_LOG_FORMAT must be "json" or "pretty" but is "xml"/);
});

t.test('sawt backup --out FILE while the server runs: a database that opens and has the accounts', async (t) => {
  const env = { ...baseEnv(t), SAWT_WORKERS: '1' };
  const port = await freePort();
  await serve(t, ['--port', String(port)], env, (o) => /Playground: /.test(o.stderr));
  const cli = async (...args) => JSON.parse((await run(process.execPath, [sawtBin, ...args, '--json'], { env, cwd: repoRoot })).stdout);
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await cli('accounts', 'create', '--name', `backup ${i}`, '--plan', 'starter', '--balance', String(i + 1))).id);
  // The server writes while the backup is taken: a key is made and used meanwhile.
  const { key } = await cli('keys', 'create', '--account', ids[0]);
  const busy = fetch(`http://127.0.0.1:${port}/api/v1/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'fusha-omar', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, streaming: false }) });
  const dir = tempDir(t);
  const file = path.join(dir, 'sawt-backup.db');
  const b = await cli('backup', '--out', file);
  t.equal((await busy).status, 200, 'the server served meanwhile');
  t.equal(b.out, file);
  t.ok(b.accounts >= 5);
  t.same((await import('node:fs')).readdirSync(dir), ['sawt-backup.db'], 'one file: no -wal, no partial file');

  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  t.teardown(() => db.close());
  const all = (sql) => new Promise((res, rej) => db.all(sql, (e, rows) => (e ? rej(e) : res(rows))));
  t.same((await all('PRAGMA integrity_check')).map((r) => r.integrity_check), ['ok'], 'integrity_check: ok');
  const accounts = await all('SELECT id, name FROM accounts ORDER BY name');
  t.same(accounts.map((a) => a.id).sort(), [...ids].sort(), 'every account is in the backup');
  const wallets = await all('SELECT account_id, balance FROM wallets');
  t.equal(wallets.length, 5, 'with its wallet');

  const again = await run(process.execPath, [sawtBin, 'backup', '--out', file], { env }).catch((e) => e);
  t.equal(again.code, 2, 'an existing file is not overwritten without --force');
  t.ok(existsSync(file));
});
