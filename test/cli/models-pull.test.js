// `sawt models pull` and `sawt models verify` against a local HTTP server started
// here: a download cut midway and resumed with a Range request, a wrong sha256, a
// 404, an unreachable host, a server that ignores ranges, an operator's own file,
// and the progress bar on a terminal. The CLI runs as a separate process, as a user runs it.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { tempDir, repoRoot, defaultConfigPath, sawtBin as bin } from '../helpers/server.js';

const run = promisify(execFile);

function cli(env, cwd, ...args) {
  return run(process.execPath, [bin, ...args], { env: { ...process.env, SAWT_MODELS_DIR: '', ...env }, cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
const json = (r) => JSON.parse(r.stdout);
const sha = (b) => createHash('sha256').update(b).digest('hex');

// 3 MB of model bytes. `/cut/…` sends half of them (announcing all) and drops the
// connection, the first time it is asked; Range requests are answered with 206.
const weights = randomBytes(3 * 1024 * 1024);
const requests = [];
const cutOnce = new Set();
const server = createServer((req, res) => {
  requests.push({ url: req.url, range: req.headers.range ?? null });
  const name = req.url.split('/').pop();
  if (name === 'missing.onnx') {
    res.statusCode = 404;
    return res.end('not found');
  }
  const body = name === 'tampered.onnx' ? Buffer.concat([weights, Buffer.from('x')]) : weights;
  const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  if (m && !req.url.startsWith('/norange/')) {
    const start = Number(m[1]);
    if (start >= body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` });
      return res.end();
    }
    res.writeHead(206, { 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
    return res.end(body.subarray(start));
  }
  res.writeHead(200, { 'content-length': body.length });
  if (req.url.startsWith('/cut/') || req.url.startsWith('/norange/')) {
    if (!cutOnce.has(req.url)) {
      cutOnce.add(req.url);
      // Half the bytes, then the connection closes (FIN after the data is flushed).
      res.write(body.subarray(0, body.length / 2), () => res.socket.end());
      return;
    }
  }
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
t.teardown(() => server.close());
const url = `http://127.0.0.1:${server.address().port}`;
// A port nothing listens on: connection refused.
const closed = createServer();
await new Promise((r) => closed.listen(0, '127.0.0.1', r));
const deadUrl = `http://127.0.0.1:${closed.address().port}/weights.onnx`;
await new Promise((r) => closed.close(r));

/** A config whose catalog adds one model per download given. */
function setup(t, models) {
  const dir = tempDir(t);
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine');
  for (const [id, file, u, hash = sha(weights)] of models) {
    engine.options.models.push({ model_id: id, model_name: id, engine: 'espeak', cost_per_char: 0.0001, files: [file], downloads: [{ file, url: u, sha256: hash }] });
  }
  const configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const modelsDir = path.join(dir, 'models');
  return { dir, modelsDir, env: { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_MODELS_DIR: modelsDir, SAWT_CONFIG: configPath } };
}

/** Every file and folder under dir, relative. */
function tree(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

t.test('a download cut midway keeps its part outside the final path; the next pull resumes it with a Range request', async (t) => {
  const { modelsDir, env, dir } = setup(t, [['big', 'big/weights.onnx', `${url}/cut/weights.onnx`]]);
  const first = await cli(env, dir, 'models', 'pull', 'big', '--json');
  t.equal(first.code, 1);
  const line = first.stderr.trim();
  t.equal(line.split('\n').length, 1, 'one line on stderr');
  t.match(line, `${url}/cut/weights.onnx`, 'names the URL');
  t.match(line, /connection lost after [\d.]+ MB of 3\.0 MB/, 'names the cause');
  t.match(line, `place it at ${path.join(modelsDir, 'big/weights.onnx')}`, 'says where to place the file by hand');
  t.match(line, /run the same command again to resume/);
  t.match(json(first), [{ name: 'big', model_id: 'big', status: 'failed', file: 'big/weights.onnx' }]);
  t.notOk(existsSync(path.join(modelsDir, 'big')), 'no folder, no file at the final path');
  const parts = tree(path.join(modelsDir, '.partial'));
  t.same(parts, [`${sha(weights)}.part`], 'the received bytes are kept in .partial/');
  // What reached the client before the cut (all of the half sent, unless the stream dropped its last chunks).
  const kept = readFileSync(path.join(modelsDir, '.partial', parts[0]));
  t.ok(kept.length > weights.length / 4 && kept.length <= weights.length / 2, `${kept.length} bytes kept`);
  t.ok(kept.equals(weights.subarray(0, kept.length)), 'a prefix of the file');

  requests.length = 0;
  const second = await cli(env, dir, 'models', 'pull', 'big', '--json');
  t.equal(second.code, 0, second.stderr);
  t.same(requests, [{ url: '/cut/weights.onnx', range: `bytes=${kept.length}-` }], 'asked only for the missing bytes');
  t.match(json(second), [{ name: 'big', status: 'downloaded', bytes: weights.length, resumed_from: kept.length, sha256: sha(weights) }]);
  t.same(readFileSync(path.join(modelsDir, 'big/weights.onnx')), weights, 'the whole file, byte for byte');
  t.same(tree(modelsDir), ['big', 'big/weights.onnx'], 'no .partial folder left');

  const again = await cli(env, dir, 'models', 'pull', 'big', '--json');
  t.match(json(again), [{ status: 'present', path: path.join(modelsDir, 'big/weights.onnx') }], 'a verified file is not fetched again');

  const listed = json(await cli(env, dir, 'models', 'list', '--json'));
  t.equal(listed.find((m) => m.model_id === 'big').available, true, 'the model is available once its file is there');
  const verified = await cli(env, dir, 'models', 'verify', '--json');
  t.equal(verified.code, 0, verified.stderr);
  t.match(json(verified).find((r) => r.file === 'big/weights.onnx'), { status: 'ok', source: 'models-dir', sha256: sha(weights) });
});

t.test('a part already complete (the process stopped before moving it) is checked and moved into place', async (t) => {
  const { modelsDir, env, dir } = setup(t, [['done', 'done/weights.onnx', `${url}/weights.onnx`]]);
  mkdirSync(path.join(modelsDir, '.partial'), { recursive: true });
  writeFileSync(path.join(modelsDir, '.partial', `${sha(weights)}.part`), weights);
  requests.length = 0;
  const r = await cli(env, dir, 'models', 'pull', 'done', '--json');
  t.equal(r.code, 0, r.stderr);
  t.same(requests, [{ url: '/weights.onnx', range: `bytes=${weights.length}-` }]);
  t.match(json(r), [{ status: 'downloaded', bytes: weights.length, resumed_from: weights.length }]);
  t.same(tree(modelsDir), ['done', 'done/weights.onnx']);
});

t.test('a server that ignores Range: the download starts over and still ends verified', async (t) => {
  const { modelsDir, env, dir } = setup(t, [['norange', 'norange/w.onnx', `${url}/norange/w.onnx`]]);
  t.equal((await cli(env, dir, 'models', 'pull', 'norange')).code, 1);
  const ok = await cli(env, dir, 'models', 'pull', 'norange', '--json');
  t.equal(ok.code, 0, ok.stderr);
  t.match(json(ok), [{ status: 'downloaded', bytes: weights.length }]);
  t.notOk(json(ok)[0].resumed_from, 'not reported as resumed');
  t.same(readFileSync(path.join(modelsDir, 'norange/w.onnx')), weights);
});

t.test('wrong sha256, 404 and an unreachable host: a clear one-line error, nothing left behind', async (t) => {
  const { modelsDir, env, dir } = setup(t, [
    ['tampered', 'tampered/model.onnx', `${url}/tampered.onnx`],
    ['gone', 'gone/model.onnx', `${url}/missing.onnx`],
    ['offline', 'offline/model.onnx', deadUrl],
  ]);
  const bad = await cli(env, dir, 'models', 'pull', 'tampered', '--json');
  t.equal(bad.code, 1);
  t.match(bad.stderr, new RegExp(`sha256 mismatch: expected ${sha(weights)}, got ${sha(Buffer.concat([weights, Buffer.from('x')]))}`));
  t.match(bad.stderr, `${url}/tampered.onnx`);

  const gone = await cli(env, dir, 'models', 'pull', 'gone');
  t.equal(gone.code, 1);
  t.match(gone.stderr, `download of gone/model.onnx from ${url}/missing.onnx failed: HTTP 404`);
  t.match(gone.stderr, `place it at ${path.join(modelsDir, 'gone/model.onnx')} (sha256 ${sha(weights)})`);

  const offline = await cli(env, dir, 'models', 'pull', 'offline');
  t.equal(offline.code, 1);
  t.match(offline.stderr, deadUrl);
  t.match(offline.stderr, /ECONNREFUSED/, 'the cause, not just "fetch failed"');
  for (const r of [bad, gone, offline]) t.equal(r.stderr.trim().split('\n').length, 1, 'one line');

  t.same(tree(modelsDir), [], 'no empty folders, no partial files');
  t.notOk(existsSync(modelsDir), 'not even the models folder it had to create');

  const all = await cli(env, dir, 'models', 'pull', 'gone', 'offline', '--json');
  t.equal(all.code, 1);
  t.match(json(all), [{ name: 'gone', status: 'failed' }, { name: 'offline', status: 'failed' }], 'every file is tried');
  t.match(all.stderr, /and 1 more failed: offline\/model\.onnx/);
});

t.test('an operator file with another sha256 is kept unless --force; verify reports it', async (t) => {
  const { modelsDir, env, dir } = setup(t, [['own', 'own/model.onnx', `${url}/weights.onnx`]]);
  mkdirSync(path.join(modelsDir, 'own'), { recursive: true });
  writeFileSync(path.join(modelsDir, 'own/model.onnx'), 'fine-tuned');
  const refused = await cli(env, dir, 'models', 'pull', 'own');
  t.equal(refused.code, 1);
  t.match(refused.stderr, /exists with sha256 .*--force/);
  t.equal(readFileSync(path.join(modelsDir, 'own/model.onnx'), 'utf8'), 'fine-tuned', 'left as it was');

  const v = await cli(env, dir, 'models', 'verify', '--json');
  t.equal(v.code, 1, 'verify fails on a mismatch');
  t.match(json(v).find((r) => r.file === 'own/model.onnx'), { status: 'mismatch', sha256: sha('fine-tuned'), expected: sha(weights) });
  t.match(v.stderr, `${path.join(modelsDir, 'own/model.onnx')} has sha256 ${sha('fine-tuned')}, expected ${sha(weights)}`);
  t.equal(v.stderr.trim().split('\n').length, 1);

  const forced = await cli(env, dir, 'models', 'pull', 'own', '--force', '--json');
  t.equal(forced.code, 0, forced.stderr);
  t.same(readFileSync(path.join(modelsDir, 'own/model.onnx')), weights);
  t.equal((await cli(env, dir, 'models', 'verify')).code, 0);
});

t.test('--force over an operator copy of a bundled file restores the bundled bytes, with no download', async (t) => {
  const dir = tempDir(t);
  const modelsDir = path.join(dir, 'models');
  const env = { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_MODELS_DIR: modelsDir };
  const voice = 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice';
  mkdirSync(path.dirname(path.join(modelsDir, voice)), { recursive: true });
  writeFileSync(path.join(modelsDir, voice), 'damaged');
  t.equal((await cli(env, dir, 'models', 'pull', 'sawt-hts')).code, 1, 'refused without --force');
  const forced = await cli(env, dir, 'models', 'pull', 'sawt-hts', '--force', '--json');
  t.equal(forced.code, 0, forced.stderr);
  t.match(json(forced), [{ status: 'present', path: path.join(modelsDir, voice) }]);
  t.same(readFileSync(path.join(modelsDir, voice)), readFileSync(path.join(repoRoot, 'models', voice)));
  t.same(tree(modelsDir), ['hts', 'hts/ara_norm_ziad', voice]);
});

t.test('on a terminal a progress bar shows percent and MB/s; --json stays quiet', { skip: !existsSync('/usr/bin/script') && 'needs script(1) for a pseudo-terminal' }, async (t) => {
  const { env, dir } = setup(t, [['tty', 'tty/w.onnx', `${url}/weights.onnx`], ['tty2', 'tty2/w.onnx', `${url}/w2.onnx`]]);
  // script(1) gives the CLI a pseudo-terminal; its stdin must not be a pipe left open.
  const viaTty = async (...args) => {
    const child = spawn('/usr/bin/script', ['-qec', [process.execPath, bin, ...args].join(' '), '/dev/null'], { env: { ...process.env, ...env }, cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    await new Promise((r) => child.on('close', r));
    return { stdout };
  };
  const shown = await viaTty('models', 'pull', 'tty');
  t.match(shown.stdout, /tty tty\/w\.onnx \[#+\] 100% 3\.0 MB\/3\.0 MB [\d.]+ MB\/s/);
  const quiet = await viaTty('models', 'pull', 'tty2', '--json');
  t.notMatch(quiet.stdout, /%|MB\/s/, 'no progress with --json');
  t.match(JSON.parse(quiet.stdout.trim()), [{ name: 'tty2', status: 'downloaded' }]);
});

t.test('a fresh clone: the bundled models need no download and verify clean; nothing is written to ./models', async (t) => {
  const cwd = tempDir(t);
  const env = { SAWT_DATA_DIR: path.join(cwd, 'data') };
  const pulled = await cli(env, cwd, 'models', 'pull', 'sawt-hts', 'diacritizer', '--json');
  t.equal(pulled.code, 0, pulled.stderr);
  t.match(json(pulled), [
    { name: 'sawt-hts', status: 'bundled', path: path.join(repoRoot, 'models/hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice') },
    { name: 'diacritizer', status: 'bundled' }, { name: 'diacritizer', status: 'bundled' }, { name: 'diacritizer', status: 'bundled' },
  ]);
  const verified = await cli(env, cwd, 'models', 'verify', '--json');
  t.equal(verified.code, 0, verified.stderr);
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'models/manifest.json'), 'utf8'));
  t.same(json(verified).filter((r) => r.status === 'ok').map((r) => r.file).sort(), Object.keys(manifest.files).sort(), 'every bundled file checked');
  t.same(readdirSync(cwd), [], 'no models folder (nor data) created in the working directory');
  const unknown = await cli(env, cwd, 'models', 'pull', 'no-such-model');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /Model 'no-such-model' not found; known: sawt-mini, sawt-hts, sawt-neural, diacritizer/);
});
