// A new user: no SAWT_MODELS_DIR, no SAWT_CONFIG, and `sawt serve` started from a
// directory other than the repository's. The bundled models are found from the
// code's location: /models lists sawt-hts with nothing "not installed", sawt-hts
// speaks, the diacritizer runs (for sawt-mini too), and /denoise runs DeepFilterNet3.
import { execFile, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parseWav, pcmStats, repoRoot, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const bin = path.join(repoRoot, 'packages/cli/bin/sawt.js');

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

t.test('sawt serve from another directory with no environment: every bundled model works', async (t) => {
  const cwd = tempDir(t, 'sawt-elsewhere-');
  const port = await freePort();
  const env = { ...process.env, SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1' };
  for (const k of ['SAWT_MODELS_DIR', 'SAWT_CONFIG', 'SAWT_DATA_DIR']) delete env[k];
  const cli = async (...args) => JSON.parse((await run(process.execPath, [bin, ...args, '--json'], { env, cwd })).stdout);
  const server = spawn(process.execPath, [bin, 'serve'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stdout.on('data', (d) => (log += d));
  server.stderr.on('data', (d) => (log += d));
  t.teardown(() => server.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150 && !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
  const up = (await fetch(`${base}/healthz`).catch(() => ({ status: 0 }))).status;
  if (up !== 200) t.comment(log);
  t.equal(up, 200, 'server up');
  t.match(log, /DeepFilterNet3 loaded/, 'DeepFilterNet3 is the denoiser');
  t.match(log, /diacritizer loaded/);
  t.notMatch(log, /"level":40/, 'no warnings at start');

  const acc = await cli('accounts', 'create', '--name', 'New', '--plan', 'enterprise', '--balance', '10');
  const { key } = await cli('keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const models = await (await fetch(`${base}/api/v1/models`, { headers })).json();
  t.same(models.map((m) => m.model_id).sort(), ['sawt-hts', 'sawt-mini']);
  for (const m of models) t.notMatch(m.description ?? '', /not installed|missing/i, `${m.model_id}: nothing missing`);

  const res = await fetch(`${base}/api/v1/text-to-speech/sawt-hts`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-ziad', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, streaming: false }) });
  t.equal(res.status, 200);
  const wav = parseWav(Buffer.from(await res.arrayBuffer()));
  t.equal(wav.fmt.sampleRate, 24000);
  t.ok(pcmStats(wav.data).rms > 500 && wav.data.length > 48000, 'real speech from the HTS voice');

  const d = await cli('text', 'diacritize', 'ذهب الولد إلى المدرسة');
  t.equal(d.output, 'ذَهَبَ الْوَلَدُ إِلَى الْمَدْرَسَةِ', 'the diacritizer, from another directory');
  t.same(readdirSync(cwd).sort(), ['data'], 'only the data dir is written in the working directory (no models/)');
});
