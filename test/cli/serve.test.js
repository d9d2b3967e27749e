import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import t from 'tap';
import { tempDir, repoRoot, LONG_TEXT, sawtBin as bin, spawnServe } from '../helpers/server.js';

const run = promisify(execFile);

t.test('sawt serve: healthz, then SIGTERM lets in-flight synthesis finish, refuses new work and exits 0', async (t) => {
  const dataDir = tempDir(t);
  const env = { ...process.env, SAWT_DATA_DIR: dataDir };
  const cli = async (...args) => JSON.parse((await run(process.execPath, [bin, ...args, '--json'], { env, cwd: repoRoot })).stdout);
  const { child: server, base, healthy, output } = await spawnServe(t, { env });
  t.ok(healthy, 'healthz answers once the server can serve');

  const acc = await cli('accounts', 'create', '--name', 'S', '--plan', 'enterprise', '--balance', '50');
  const key = await cli('keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
  const text = LONG_TEXT.repeat(10);
  const res = await fetch(`${base}/api/v1/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'hijazi-yousef', text, stability: 0.5, streaming: true }) });
  t.equal(res.status, 200);
  const reader = res.body.getReader();
  let bytes = (await reader.read()).value.length;

  server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  const refused = await fetch(`${base}/api/v1/models`, { headers }).then((r) => r.status, () => 'connection refused');
  t.ok(refused === 503 || refused === 'connection refused', `new request refused during shutdown (${refused})`);

  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
  }
  t.ok(bytes / 2 / 24000 > 60, `in-flight stream completed (${(bytes / 48000).toFixed(1)} s of audio)`);
  const [code] = await once(server, 'exit');
  t.equal(code, 0, 'exit code 0', { output: output() });

  const wallet = await cli('wallet', 'show', '--account', acc.id);
  t.equal(wallet.reserved, 0, 'no reservation left behind');
  t.equal(wallet.balance, Number((50 - [...text.trim()].length * 0.0001).toFixed(6)), 'the finished request was charged exactly');
});

t.test('run as a program (as npx does), sawt serve is the process started, with the Node options of node-flags.sh', async (t) => {
  const dataDir = tempDir(t);
  const flags = (await run('sh', [`${repoRoot}/packages/cli/bin/node-flags.sh`])).stdout.trim();
  const { availableParallelism } = await import('node:os');
  t.equal(flags, availableParallelism() <= 4 ? '--no-memory-reducer --single-threaded-gc' : '--no-memory-reducer', 'no memory reducer; one thread collects garbage on up to 4 cores');
  const { child: server, healthy, output } = await spawnServe(t, { env: { ...process.env, SAWT_DATA_DIR: dataDir }, asProgram: true });
  t.ok(healthy, 'healthz answers', { output: output() });
  const { readFileSync } = await import('node:fs');
  const argv = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  t.match(argv[0], /node$/, 'the process started is Node itself (the shell line replaced itself)');
  t.same(argv.slice(1, -2), flags ? flags.split(' ') : [], 'with the options');
  t.same(argv.slice(-2), [bin, 'serve'], 'then the bin and its arguments');
  server.kill('SIGTERM');
  const [code] = await once(server, 'exit');
  t.equal(code, 0, 'SIGTERM: exit code 0', { output: output() });
});
