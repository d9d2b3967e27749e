// A new user: no SAWT_MODELS_DIR, no SAWT_CONFIG, and `sawt serve` started from a
// directory other than the repository's. The bundled models are found from the
// code's location: /models lists sawt-hts with nothing "not installed", sawt-hts
// speaks, the diacritizer runs (for sawt-mini too), and /denoise runs DeepFilterNet3.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { parseWav, pcmStats, sawtBin as bin, spawnServe, tempDir } from '../helpers/server.js';

const run = promisify(execFile);

t.test('sawt serve from another directory with no environment: every bundled model works', async (t) => {
  const cwd = tempDir(t, 'sawt-elsewhere-');
  const env = { ...process.env };
  for (const k of ['SAWT_MODELS_DIR', 'SAWT_CONFIG']) delete env[k];
  // Only the data dir is set: from a directory without config/ it would default to the
  // installation's data/ (test/cli/help.test.js checks those defaults), shared by every run.
  env.SAWT_DATA_DIR = tempDir(t, 'sawt-elsewhere-data-');
  const cli = async (...args) => JSON.parse((await run(process.execPath, [bin, ...args, '--json'], { env, cwd })).stdout);
  const { base, healthy, output } = await spawnServe(t, { env, cwd });
  if (!healthy) t.comment(output());
  t.ok(healthy, 'server up');
  const log = output();
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
  t.same(readdirSync(cwd), [], 'nothing is written in the working directory (the data dir is elsewhere, no models/)');
});
